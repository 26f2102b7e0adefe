import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomically } from './mesh-ca-store.js';
import type { ProxyIdentity } from './proxy-identities.js';

/** The folder of the data directory where proxyless gRPC proxies' certificate files are written. */
export const GRPC_CERTIFICATES_FOLDER = 'grpc-certificates';

/** The files gRPC's `file_watcher` certificate provider reads (gRFC A29). */
export interface GrpcCertificateFiles {
  certificateFile: string;
  privateKeyFile: string;
  caCertificateFile: string;
}

/** Where meshdesk writes the certificate files of the proxy `<mesh>.<name>`: its bootstrap names them. */
export function grpcCertificateFiles(dataDir: string, mesh: string, name: string): GrpcCertificateFiles {
  const folder = join(dataDir, GRPC_CERTIFICATES_FOLDER, mesh, name);
  return { certificateFile: join(folder, 'cert.pem'), privateKeyFile: join(folder, 'key.pem'), caCertificateFile: join(folder, 'ca.pem') };
}

/** Removes the certificate files of a deleted Dataplane (`name`), or of every proxy of a deleted mesh. */
export function removeGrpcCertificates(dataDir: string, mesh: string, name?: string): void {
  rmSync(join(dataDir, GRPC_CERTIFICATES_FOLDER, mesh, ...(name === undefined ? [] : [name])), { recursive: true, force: true });
}

/**
 * Writes a proxyless proxy's identity where its bootstrap's file watcher reads it, each file whole
 * under another name and renamed into place (0600, folder 0700): a reader never sees half a file.
 * The key goes first and the certificate last; the old certificate is still valid at rotation (4/5 of
 * its lifetime), so a reader that caught the pair mid-swap has a good pair at its next refresh.
 */
export function writeGrpcCertificates(files: GrpcCertificateFiles, identity: ProxyIdentity): void {
  mkdirSync(join(files.certificateFile, '..'), { recursive: true, mode: 0o700 });
  writeAtomically(files.caCertificateFile, identity.caCert);
  writeAtomically(files.privateKeyFile, identity.key);
  writeAtomically(files.certificateFile, identity.certChain);
}
