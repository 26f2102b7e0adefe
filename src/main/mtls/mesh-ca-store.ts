import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CertAndKey } from '../tls/x509.js';
import { createMeshCa } from './mesh-ca.js';

/** The folder of the data directory holding every mesh's CA (`<mesh>/<backend>.crt|.key`). */
export const MESH_CA_FOLDER = 'mesh-ca';

/** What may be shown of a mesh CA: never its key. */
export interface MeshCaInfo {
  mesh: string;
  backend: string;
  /** SHA-256 of the certificate's DER, `AA:BB:…` as browsers and openssl print it. */
  fingerprint: string;
  subject: string;
  notBefore: string;
  notAfter: string;
}

/** A mesh CA's certificate or key in the data directory cannot be used: says which file and what to do. */
export class MeshCaError extends Error {
  override readonly name = 'MeshCaError';
}

/**
 * Each mesh's CA per builtin backend, kept only in the data directory (key 0600, folders 0700):
 * created the first time something needs it (the first proxy of a mesh that enabled the backend,
 * or the mesh's mTLS view), then reused across restarts, as Kuma keeps it in a Secret. The key
 * leaves this class only to sign, inside the process: `info` is what the API and UI get.
 */
export class MeshCaStore {
  readonly #folder: string;
  readonly #loaded = new Map<string, CertAndKey>();

  constructor(dataDir: string) {
    this.#folder = join(dataDir, MESH_CA_FOLDER);
  }

  /** The CA of the mesh's backend, created on first use. */
  get(mesh: string, backend: string): CertAndKey {
    const id = `${mesh}/${backend}`;
    const loaded = this.#loaded.get(id);
    if (loaded) return loaded;
    const { certFile, keyFile } = this.#files(mesh, backend);
    const ca = existsSync(certFile) || existsSync(keyFile) ? readCa(certFile, keyFile) : this.#create(mesh, backend);
    this.#loaded.set(id, ca);
    return ca;
  }

  info(mesh: string, backend: string): MeshCaInfo {
    const cert = new X509Certificate(this.get(mesh, backend).cert);
    return {
      mesh,
      backend,
      fingerprint: cert.fingerprint256,
      subject: cert.subject.split('\n').join(', '),
      notBefore: new Date(cert.validFrom).toISOString(),
      notAfter: new Date(cert.validTo).toISOString(),
    };
  }

  /**
   * The mesh was deleted: its CAs go with it, keys included (Kuma's CA secrets are owned by the
   * Mesh). A mesh created again under that name gets new CAs, and so new identities.
   */
  deleteMesh(mesh: string): void {
    for (const id of this.#loaded.keys()) if (id.startsWith(`${mesh}/`)) this.#loaded.delete(id);
    rmSync(join(this.#folder, mesh), { recursive: true, force: true });
  }

  #create(mesh: string, backend: string): CertAndKey {
    const { certFile, keyFile } = this.#files(mesh, backend);
    mkdirSync(join(this.#folder, mesh), { recursive: true, mode: 0o700 });
    const ca = createMeshCa(mesh);
    // Key first, each written aside and renamed: a crash leaves no certificate without its key.
    writeAtomically(keyFile, ca.key);
    writeAtomically(certFile, ca.cert);
    return ca;
  }

  #files(mesh: string, backend: string) {
    const base = join(this.#folder, mesh, backend);
    return { certFile: `${base}.crt`, keyFile: `${base}.key` };
  }
}

/** Writes a private file (0600) whole under another name, then renames it into place. */
export function writeAtomically(file: string, content: string): void {
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, content, { mode: 0o600 });
  renameSync(aside, file);
}

function readCa(certFile: string, keyFile: string): CertAndKey {
  const fix = `delete both ${certFile} and ${keyFile} to have meshdesk create a new mesh CA (every proxy of the mesh then gets new certificates)`;
  try {
    const ca = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
    if (!new X509Certificate(ca.cert).checkPrivateKey(createPrivateKey(ca.key))) throw new Error('the key does not belong to the certificate');
    return ca;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MeshCaError(`the mesh CA ${certFile} cannot be used: ${reason}; ${fix}`, { cause: error });
  }
}

const digests = new WeakMap<CertAndKey, string>();

/**
 * A short, stable digest of a CA certificate, to tell identities issued by different CAs apart;
 * remembered per loaded CA, since every proxy's tick asks.
 */
export function caDigest(ca: CertAndKey): string {
  let digest = digests.get(ca);
  if (digest === undefined) digests.set(ca, (digest = createHash('sha256').update(ca.cert).digest('hex').slice(0, 16)));
  return digest;
}
