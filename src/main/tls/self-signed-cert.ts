import { generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
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

const SHA256_WITH_RSA = sequence(objectIdentifier('1.2.840.113549.1.1.11'), nullValue());
const COMMON_NAME = '2.5.4.3';
const EXT_BASIC_CONSTRAINTS = '2.5.29.19';
const EXT_KEY_USAGE = '2.5.29.15';
const EXT_EXTENDED_KEY_USAGE = '2.5.29.37';
const EXT_SUBJECT_ALT_NAME = '2.5.29.17';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
/** digitalSignature (bit 0), keyEncipherment (bit 2), keyCertSign (bit 5): 1010 0100, 2 unused bits. */
const KEY_USAGE_BITS = bitString(Buffer.from([0xa4]), 2);

/**
 * A self-signed RSA-2048 server certificate that is also its own CA, as Kuma's control plane
 * creates for its DP server when given none: a client that trusts this one file (kuma-dp's
 * `--ca-cert-file`, Envoy's trusted CA) can verify the server, and Go refuses a CA file that is
 * not a CA.
 */
export function createSelfSignedCert(options: SelfSignedCertOptions): CertAndKey {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const now = options.now ?? new Date();
  const name = sequence(set(sequence(objectIdentifier(COMMON_NAME), utf8String(options.commonName))));
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000); // an hour back: clocks drift
  const notAfter = new Date(now.getTime() + options.validDays * 24 * 60 * 60 * 1000);
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))), // v3
    unsignedInteger(serial),
    SHA256_WITH_RSA,
    name,
    sequence(time(notBefore), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        extension(EXT_BASIC_CONSTRAINTS, true, sequence(booleanTrue())),
        extension(EXT_KEY_USAGE, true, KEY_USAGE_BITS),
        extension(EXT_EXTENDED_KEY_USAGE, false, sequence(objectIdentifier(SERVER_AUTH))),
        extension(EXT_SUBJECT_ALT_NAME, false, sequence(...options.hosts.map(generalName))),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(tbs, SHA256_WITH_RSA, bitString(signature));
  const cert = new X509Certificate(der).toString(); // parses it back: a malformed encoding fails here
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [booleanTrue()] : []), octetString(value));
}

function generalName(host: string): Buffer {
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
