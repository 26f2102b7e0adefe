/**
 * The few DER (ASN.1 Distinguished Encoding Rules) shapes an X.509 certificate needs. Node's
 * crypto signs and parses certificates but cannot build one; this is the building half, small
 * enough to read whole rather than a dependency.
 */

/** Tag, definite length, content: every DER value has this shape. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

function length(count: number): Buffer {
  if (count < 0x80) return Buffer.from([count]);
  const bytes: number[] = [];
  for (let rest = count; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (content: Uint8Array): Buffer => tlv(0x04, content);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const booleanTrue = (): Buffer => tlv(0x01, Buffer.from([0xff]));
export const nullValue = (): Buffer => tlv(0x05, Buffer.alloc(0));
/** Context-specific constructed tag `[n] EXPLICIT`. */
export const explicit = (n: number, content: Uint8Array): Buffer => tlv(0xa0 | n, content);
/** Context-specific primitive tag `[n] IMPLICIT` (GeneralName's dNSName is [2], iPAddress [7]). */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content);

/** A BIT STRING whose content is whole bytes, except `unusedBits` trailing bits of the last. */
export function bitString(content: Uint8Array, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

/** A non-negative INTEGER from its big-endian magnitude (a leading 0 keeps a high bit from reading as negative). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  return tlv(0x02, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const base128 = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) base128.unshift(0x80 | (rest & 0x7f));
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** X.509 Time: UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5), to the second. */
export function time(date: Date): Buffer {
  const digits = date.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDhhmmssZ
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}
