import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_PLANE_CERT_FILE, CONTROL_PLANE_KEY_FILE, loadOrCreateControlPlaneCert } from '../../src/main/tls/control-plane-cert.js';
import type { CertAndKey } from '../../src/main/tls/x509.js';

let certificatePair: CertAndKey | undefined;

/**
 * Gives an empty data directory the ADS port's certificate pair, as its first start would leave it,
 * one pair per process: a first start otherwise generates an RSA key, 0.1 to 1 s of CPU, in every
 * test that starts a core. The first start itself is tested on a data directory of the test's own
 * (test/kuma-dp.test.ts). Returns `dataDir`.
 */
export function withControlPlaneCert(dataDir: string): string {
  if (certificatePair) {
    writeFileSync(join(dataDir, CONTROL_PLANE_KEY_FILE), certificatePair.key, { mode: 0o600 });
    writeFileSync(join(dataDir, CONTROL_PLANE_CERT_FILE), certificatePair.cert, { mode: 0o644 });
  } else {
    const { cert, key } = loadOrCreateControlPlaneCert(dataDir);
    certificatePair = { cert, key };
  }
  return dataDir;
}
