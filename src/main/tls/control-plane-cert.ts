import { createPrivateKey as createPrivateKeyOf, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createSelfSignedCert } from './self-signed-cert.js';
import type { CertAndKey } from './x509.js';

/** Kuma's names for its auto-generated DP server certificate (`~/.kuma/kuma-cp.{crt,key}`). */
export const CONTROL_PLANE_CERT_FILE = 'kuma-cp.crt';
export const CONTROL_PLANE_KEY_FILE = 'kuma-cp.key';

/** The TLS identity of the ADS port: what kuma-dp's `--ca-cert-file` points at. */
export interface ControlPlaneCert extends CertAndKey {
  /** Where the certificate is, to tell the user. */
  certFile: string;
}

/** The certificate or key in the data directory cannot be used: says which file and what to do. */
export class ControlPlaneCertError extends Error {
  override readonly name = 'ControlPlaneCertError';
}

/**
 * The ADS port's certificate, created once in the data directory and reused after, as Kuma's
 * autoconfig does: a user points kuma-dp at the file once, and it stays valid across restarts.
 * The key is written owner-only (0600).
 */
export function loadOrCreateControlPlaneCert(dataDir: string): ControlPlaneCert {
  const certFile = join(dataDir, CONTROL_PLANE_CERT_FILE);
  const keyFile = join(dataDir, CONTROL_PLANE_KEY_FILE);
  if (existsSync(certFile) || existsSync(keyFile)) return { ...readPair(certFile, keyFile), certFile };
  const created = createSelfSignedCert({ commonName: 'meshdesk', hosts: certificateHosts(), validDays: 10 * 365 });
  writeFileSync(keyFile, created.key, { mode: 0o600 });
  writeFileSync(certFile, created.cert, { mode: 0o644 });
  return { ...created, certFile };
}

/** Kuma's SAN list for a local control plane: the loopback names and this machine's host name. */
function certificateHosts(): string[] {
  return [...new Set(['localhost', '127.0.0.1', '::1', hostname()].filter((host) => host !== ''))];
}

function readPair(certFile: string, keyFile: string): CertAndKey {
  const fix = `delete both ${certFile} and ${keyFile} to have meshdesk create a new pair (and give kuma-dp the new certificate)`;
  let pair: CertAndKey;
  try {
    pair = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ControlPlaneCertError(`cannot read the ADS port's TLS certificate: ${reason}; ${fix}`, { cause: error });
  }
  try {
    if (!new X509Certificate(pair.cert).checkPrivateKey(createPrivateKeyOf(pair.key))) throw new Error('the key does not belong to the certificate');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ControlPlaneCertError(`the ADS port's TLS certificate ${certFile} cannot be used: ${reason}; ${fix}`, { cause: error });
  }
  return pair;
}
