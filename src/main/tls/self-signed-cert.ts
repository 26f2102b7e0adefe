import { generateKeyPairSync } from 'node:crypto';
import {
  basicConstraints,
  distinguishedName,
  extendedKeyUsage,
  KEY_USAGE,
  keyUsage,
  NAME_ATTRIBUTES,
  pkcs8Pem,
  randomSerial,
  SERVER_AUTH,
  signCertificate,
  subjectAltName,
} from './x509.js';

export interface SelfSignedCertOptions {
  /** The subject and issuer common name. */
  commonName: string;
  /** DNS names and IP addresses (v4 or v6) the certificate is valid for. */
  hosts: readonly string[];
  /** How long it is valid from now. */
  validDays: number;
  now?: Date;
}

/** A certificate and its private key, both PEM. */
export interface CertAndKey {
  cert: string;
  key: string;
}

/**
 * A self-signed RSA-2048 server certificate that is also its own CA, as Kuma's control plane
 * creates for its DP server when given none: a client that trusts this one file (kuma-dp's
 * `--ca-cert-file`, Envoy's trusted CA) can verify the server, and Go refuses a CA file that is
 * not a CA.
 */
export function createSelfSignedCert(options: SelfSignedCertOptions): CertAndKey {
  const now = options.now ?? new Date();
  return signSelfSigned({
    name: distinguishedName([[NAME_ATTRIBUTES.commonName, options.commonName]]),
    notBefore: new Date(now.getTime() - 60 * 60 * 1000), // an hour back: clocks drift
    notAfter: new Date(now.getTime() + options.validDays * 24 * 60 * 60 * 1000),
    extensions: [
      basicConstraints(true),
      keyUsage([KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment, KEY_USAGE.keyCertSign]),
      extendedKeyUsage([SERVER_AUTH]),
      subjectAltName(options.hosts.map((host) => ({ host }))),
    ],
  });
}

/** What tells one self-signed certificate from another; the key, serial and signature are made alike for all. */
export interface SelfSignedFields {
  /** The subject, which is also the issuer. */
  name: Buffer;
  notBefore: Date;
  notAfter: Date;
  extensions: readonly Buffer[];
}

/** A new RSA-2048 key pair and a certificate for it signed with its own key (the ADS port's, a mesh CA). */
export function signSelfSigned(fields: SelfSignedFields): CertAndKey {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = signCertificate({
    serial: randomSerial(),
    subject: fields.name,
    issuer: fields.name,
    notBefore: fields.notBefore,
    notAfter: fields.notAfter,
    publicKey,
    extensions: fields.extensions,
    signingKey: privateKey,
  });
  return { cert: cert.toString(), key: pkcs8Pem(privateKey) };
}
