import { generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import {
  bitString,
  booleanTrue,
  explicit,
  implicit,
  nullValue,
  objectIdentifier,
  octetString,
  sequence,
  set,
  time,
  unsignedInteger,
  utf8String,
} from './der.js';

/** A certificate and its private key, both PEM. */
export interface CertAndKey {
  cert: string;
  key: string;
}

/**
 * Builds and signs X.509 v3 certificates from DER pieces (`der.ts`): the self-signed ADS port
 * certificate, each mesh's CA and the identity certificates it issues all come from here.
 */

const SHA256_WITH_RSA = sequence(objectIdentifier('1.2.840.113549.1.1.11'), nullValue());

/** Attribute OIDs of a distinguished name. */
export const NAME_ATTRIBUTES = { organization: '2.5.4.10', organizationalUnit: '2.5.4.11', commonName: '2.5.4.3' } as const;

/** A distinguished name from its attributes in order, one RDN each; none is the empty name. */
export function distinguishedName(attributes: readonly (readonly [oid: string, value: string])[]): Buffer {
  return sequence(...attributes.map(([oid, value]) => set(sequence(objectIdentifier(oid), utf8String(value)))));
}

const EXT_BASIC_CONSTRAINTS = '2.5.29.19';
const EXT_KEY_USAGE = '2.5.29.15';
const EXT_EXTENDED_KEY_USAGE = '2.5.29.37';
const EXT_SUBJECT_ALT_NAME = '2.5.29.17';
export const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
export const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** KeyUsage bits, numbered as RFC 5280 §4.2.1.3 numbers them. */
export const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyAgreement: 4, keyCertSign: 5, cRLSign: 6 } as const;

export function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [booleanTrue()] : []), octetString(value));
}

/** BasicConstraints, critical: `cA` true for a CA, an empty sequence (cA false) otherwise. */
export function basicConstraints(ca: boolean): Buffer {
  return extension(EXT_BASIC_CONSTRAINTS, true, ca ? sequence(booleanTrue()) : sequence());
}

/** KeyUsage, critical, from the bits set (DER: trailing zero bits are dropped as unused). */
export function keyUsage(bits: readonly number[]): Buffer {
  let value = 0;
  for (const bit of bits) value |= 0x8000 >> bit;
  const bytes = value & 0xff ? Buffer.from([value >> 8, value & 0xff]) : Buffer.from([value >> 8]);
  const last = bytes[bytes.length - 1]!;
  let unused = 0;
  while (unused < 7 && (last & (1 << unused)) === 0) unused++;
  return extension(EXT_KEY_USAGE, true, bitString(bytes, unused));
}

export function extendedKeyUsage(oids: readonly string[]): Buffer {
  return extension(EXT_EXTENDED_KEY_USAGE, false, sequence(...oids.map(objectIdentifier)));
}

/** One SubjectAltName entry: a URI, or a DNS name or IP address. */
export type AltName = { uri: string } | { host: string };

/** SubjectAltName; critical when the subject is empty, as RFC 5280 §4.2.1.6 requires (and Go does). */
export function subjectAltName(names: readonly AltName[], critical = false): Buffer {
  return extension(EXT_SUBJECT_ALT_NAME, critical, sequence(...names.map(generalName)));
}

function generalName(name: AltName): Buffer {
  if ('uri' in name) return implicit(6, Buffer.from(name.uri, 'ascii'));
  const { host } = name;
  if (isIPv4(host)) return implicit(7, Buffer.from(host.split('.').map(Number)));
  if (isIPv6(host)) return implicit(7, ipv6Bytes(host));
  return implicit(2, Buffer.from(host, 'ascii'));
}

/** The 16 bytes of an IPv6 literal (`::` expanded; no embedded IPv4 form, which no SAN here uses). */
function ipv6Bytes(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((group, index) => bytes.writeUInt16BE(group, index * 2));
  return bytes;
}

/** A random positive 128-bit serial number (Go refuses a negative one). */
export function randomSerial(): Buffer {
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  return serial;
}

export interface CertificateFields {
  serial: Uint8Array;
  subject: Buffer;
  issuer: Buffer;
  notBefore: Date;
  notAfter: Date;
  /** The certified key. */
  publicKey: KeyObject;
  extensions: readonly Buffer[];
  /** The issuer's RSA key (the certified key's own for a self-signed certificate). */
  signingKey: KeyObject;
}

/** The private key as PEM PKCS#8, the form written next to each certificate. */
export function pkcs8Pem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** Signs the certificate with SHA-256/RSA and parses it back: a malformed encoding fails here, not in a client. */
export function signCertificate(fields: CertificateFields): X509Certificate {
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))), // v3
    unsignedInteger(fields.serial),
    SHA256_WITH_RSA,
    fields.issuer,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    fields.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...fields.extensions)),
  );
  const signature = sign('sha256', tbs, fields.signingKey);
  return new X509Certificate(sequence(tbs, SHA256_WITH_RSA, bitString(signature)));
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
