import {
  basicConstraints,
  distinguishedName,
  extendedKeyUsage,
  KEY_USAGE,
  keyUsage,
  NAME_ATTRIBUTES,
  SERVER_AUTH,
  signSelfSigned,
  subjectAltName,
  type CertAndKey,
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
