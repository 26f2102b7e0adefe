import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMeshCa, issueIdentityCert } from './mesh-ca.js';

describe('issueIdentityCert', () => {
  it('issues a P-256 identity signed by the RSA mesh CA, for server and client authentication, its SANs critical', async () => {
    const ca = createMeshCa('default');
    const issued = await issueIdentityCert(ca, ['spiffe://default/web', 'kuma://kuma.io/service/web'], 60_000);
    const cert = new X509Certificate(issued.cert);
    expect(cert.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(cert.checkIssued(new X509Certificate(ca.cert))).toBe(true);
    expect(cert.publicKey.asymmetricKeyType).toBe('ec');
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(cert.checkPrivateKey(createPrivateKey(issued.key))).toBe(true);
    expect(cert.subjectAltName).toBe('URI:spiffe://default/web, URI:kuma://kuma.io/service/web');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  });
});
