import { X509Certificate, createPrivateKey } from 'node:crypto';
import { expect, test } from 'vitest';
import { createSelfSignedCert } from './self-signed-cert.js';

test('a self-signed RSA-2048 CA for server authentication, valid for the given names and addresses', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const { cert, key } = createSelfSignedCert({ commonName: 'meshdesk', hosts: ['localhost', '127.0.0.1', '::1', 'my-laptop'], validDays: 3650, now });
  const parsed = new X509Certificate(cert);
  expect(parsed.subject).toBe('CN=meshdesk');
  expect(parsed.issuer).toBe('CN=meshdesk');
  expect(parsed.ca).toBe(true);
  expect(parsed.verify(parsed.publicKey)).toBe(true); // signed by its own key
  expect(parsed.checkPrivateKey(createPrivateKey(key))).toBe(true);
  expect(parsed.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
  expect(parsed.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:my-laptop');
  expect(parsed.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']); // Node lists the extended key usage: serverAuth
  expect(new Date(parsed.validTo).getUTCFullYear()).toBe(2035);
  expect(new Date(parsed.validFrom).getTime()).toBeLessThanOrEqual(now.getTime());
  expect(parsed.serialNumber).toMatch(/^[0-7]/); // positive, as Go requires
});

test('each certificate gets its own key and serial number', () => {
  const options = { commonName: 'meshdesk', hosts: ['localhost'], validDays: 1 };
  const [first, second] = [createSelfSignedCert(options), createSelfSignedCert(options)];
  expect(new X509Certificate(first.cert).serialNumber).not.toBe(new X509Certificate(second.cert).serialNumber);
  expect(first.key).not.toBe(second.key);
});
