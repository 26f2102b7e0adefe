import { X509Certificate } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { MESH_CA_FOLDER, MeshCaStore } from './mesh-ca-store.js';

describe('MeshCaStore', () => {
  it('creates a mesh CA in Kuma’s shape once, owner-only, and reads it back after a restart', () => {
    const dataDir = tempDir();
    const created = new MeshCaStore(dataDir).get('default', 'ca-1');
    const cert = new X509Certificate(created.cert);
    expect(cert.subject).toBe('O=Kuma\nOU=Mesh\nCN=default');
    expect(cert.subjectAltName).toBe('URI:spiffe://default');
    expect(cert.ca).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(Date.parse(cert.validTo) - Date.parse(cert.validFrom)).toBe(10 * 365 * 86_400_000 + 10_000);
    const folder = join(dataDir, MESH_CA_FOLDER, 'default');
    expect(statSync(join(folder, 'ca-1.key')).mode & 0o777).toBe(0o600);
    expect(statSync(folder).mode & 0o777).toBe(0o700);

    const restarted = new MeshCaStore(dataDir);
    expect(restarted.get('default', 'ca-1')).toEqual(created);
    expect(restarted.info('default', 'ca-1')).toEqual({
      mesh: 'default',
      backend: 'ca-1',
      fingerprint: cert.fingerprint256,
      subject: 'O=Kuma, OU=Mesh, CN=default',
      notBefore: new Date(cert.validFrom).toISOString(),
      notAfter: new Date(cert.validTo).toISOString(),
    });
    expect(new MeshCaStore(dataDir).get('default', 'ca-2').cert).not.toBe(created.cert);
  });

  it('refuses a CA whose key is not its own, naming the files and what to do', () => {
    const dataDir = tempDir();
    new MeshCaStore(dataDir).get('default', 'ca-1');
    const other = new MeshCaStore(tempDir()).get('default', 'ca-1');
    writeFileSync(join(dataDir, MESH_CA_FOLDER, 'default', 'ca-1.key'), other.key);
    expect(() => new MeshCaStore(dataDir).get('default', 'ca-1')).toThrow(
      /the mesh CA .*ca-1\.crt cannot be used: the key does not belong to the certificate; delete both .*ca-1\.crt and .*ca-1\.key/,
    );
  });
});
