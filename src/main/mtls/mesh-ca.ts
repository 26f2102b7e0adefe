import { createPrivateKey, generateKeyPair, X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import type { CertAndKey } from '../tls/x509.js';
import {
  basicConstraints,
  CLIENT_AUTH,
  distinguishedName,
  extendedKeyUsage,
  KEY_USAGE,
  keyUsage,
  NAME_ATTRIBUTES,
  pkcs8Pem,
  randomSerial,
  SERVER_AUTH,
  signCertificate,
  signSelfSigned,
  subjectAltName,
} from '../tls/x509.js';

/** Kuma's builtin CA: 10 years, back-dated by the clock skew it allows. */
const CA_VALIDITY_MS = 10 * 365 * 24 * 60 * 60 * 1000;
const ALLOWED_CLOCK_SKEW_MS = 10_000;

/**
 * A mesh's CA as Kuma's builtin CA plugin creates it (pkg/plugins/ca/builtin/ca.go): RSA-2048,
 * subject O=Kuma, OU=Mesh, CN=<mesh>, URI SAN `spiffe://<mesh>`, CA usage only (certSign, cRLSign).
 * The serial is random, where Kuma writes 0: RFC 5280 wants it positive.
 */
export function createMeshCa(mesh: string, now = new Date()): CertAndKey {
  return signSelfSigned({
    name: distinguishedName([
      [NAME_ATTRIBUTES.organization, 'Kuma'],
      [NAME_ATTRIBUTES.organizationalUnit, 'Mesh'],
      [NAME_ATTRIBUTES.commonName, mesh],
    ]),
    notBefore: new Date(now.getTime() - ALLOWED_CLOCK_SKEW_MS),
    notAfter: new Date(now.getTime() + CA_VALIDITY_MS),
    extensions: [
      keyUsage([KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign]),
      basicConstraints(true),
      subjectAltName([{ uri: spiffeId(mesh) }]),
    ],
  });
}

/** `spiffe://<mesh>` for the mesh (its trust domain), `spiffe://<mesh>/<service>` for a service. */
export function spiffeId(mesh: string, service?: string): string {
  return service === undefined ? `spiffe://${mesh}` : `spiffe://${mesh}/${service}`;
}

/** `kuma://<tag>/<value>`: the URI SAN an identity carries for each of its tags (Kuma's KumaID). */
export function kumaTagId(tag: string, value: string): string {
  return `kuma://${tag}/${value}`;
}

/** A proxy's tags with every value each has across its inbounds (Kuma's MultiValueTagSet). */
export type MultiValueTags = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * The URI SANs of an identity (Kuma's issuer.newWorkloadTemplate): `spiffe://<mesh>/<service>` per
 * service, then `kuma://<tag>/<value>` for every tag and value, `kuma.io/service` included, each in
 * sorted order.
 */
export function identityUris(mesh: string, tags: MultiValueTags): string[] {
  const sorted = (values: Iterable<string>) => [...values].sort();
  const services = sorted(tags.get('kuma.io/service') ?? []).map((service) => spiffeId(mesh, service));
  const kuma = sorted(tags.keys()).flatMap((tag) => sorted(tags.get(tag)!).map((value) => kumaTagId(tag, value)));
  return [...services, ...kuma];
}

export interface IssuedCertificate extends CertAndKey {
  parsed: X509Certificate;
}

const generateKeyPairAsync = promisify(generateKeyPair);

/**
 * An identity certificate issued by the mesh CA (Kuma's issuer.NewWorkloadCert): random 128-bit
 * serial, no subject (so the SANs are critical), server and client authentication, signed by the
 * mesh's RSA-2048 CA as Kuma's is. Its own key is ECDSA P-256, where Kuma makes RSA-2048: an RSA
 * key costs 50–250 ms of a core, so 50 proxies connecting to an mTLS mesh waited seconds for their
 * identities, and a P-256 key costs well under a millisecond. Envoy, grpc-js (OpenSSL) and gRPC's
 * C core (BoringSSL) all take P-256 identities under an RSA CA; nothing checks a leaf's key type.
 */
export async function issueIdentityCert(ca: CertAndKey, uris: readonly string[], validityMs: number, now = new Date()): Promise<IssuedCertificate> {
  const { publicKey, privateKey } = await generateKeyPairAsync('ec', { namedCurve: 'prime256v1' });
  const caCert = new X509Certificate(ca.cert);
  const parsed = signCertificate({
    serial: randomSerial(),
    subject: distinguishedName([]),
    issuer: issuerName(caCert),
    notBefore: new Date(now.getTime() - ALLOWED_CLOCK_SKEW_MS),
    notAfter: new Date(now.getTime() + validityMs),
    publicKey,
    extensions: [
      // keyEncipherment is RSA key transport: an ECDSA key signs (TLS 1.2 ECDHE and 1.3) and agrees keys.
      keyUsage([KEY_USAGE.digitalSignature, KEY_USAGE.keyAgreement]),
      extendedKeyUsage([SERVER_AUTH, CLIENT_AUTH]),
      basicConstraints(false),
      subjectAltName(uris.map((uri) => ({ uri })), true),
    ],
    signingKey: createPrivateKey(ca.key),
  });
  return { cert: parsed.toString(), key: pkcs8Pem(privateKey), parsed };
}

/** The CA's subject exactly as encoded in it: a verifier compares the issuer name byte for byte. */
function issuerName(ca: X509Certificate): Buffer {
  return tbsSubject(ca.raw);
}

/**
 * The subject Name's DER inside a certificate: TBSCertificate holds version [0], serial, signature
 * algorithm, issuer, validity, then subject.
 */
function tbsSubject(certificate: Buffer): Buffer {
  const certSequence = readTlv(certificate, 0);
  const tbs = readTlv(certificate, certSequence.contentStart);
  let offset = tbs.contentStart;
  for (let field = 0; field < 5; field++) offset = readTlv(certificate, offset).end; // version, serial, algorithm, issuer, validity
  return certificate.subarray(offset, readTlv(certificate, offset).end);
}

function readTlv(bytes: Buffer, offset: number): { contentStart: number; end: number } {
  const first = bytes[offset + 1]!;
  let length = first;
  let contentStart = offset + 2;
  if (first & 0x80) {
    length = 0;
    for (let index = 0; index < (first & 0x7f); index++) length = length * 256 + bytes[offset + 2 + index]!;
    contentStart += first & 0x7f;
  }
  return { contentStart, end: contentStart + length };
}
