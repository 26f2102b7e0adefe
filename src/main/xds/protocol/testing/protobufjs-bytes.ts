import type protobuf from 'protobufjs';
import { expect } from 'vitest';
import { findMessageType } from '../proto-root.js';

/**
 * `bytes` are exactly what protobufjs writes for the message they hold (`type.encode` of
 * `type.decode`), at every level: each Any's content too, by its own type.
 */
export function expectProtobufjsBytes(type: protobuf.Type, bytes: Uint8Array): void {
  const message = type.decode(bytes);
  expect(Buffer.from(type.encode(message).finish())).toEqual(Buffer.from(bytes));
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return;
    const { type_url: typeUrl, value: inner } = value as { type_url?: unknown; value?: unknown };
    if (typeof typeUrl === 'string' && inner instanceof Uint8Array) {
      expectProtobufjsBytes(findMessageType(typeUrl.slice(typeUrl.indexOf('/') + 1))!, inner);
      return;
    }
    for (const part of Object.values(value)) visit(part);
  };
  visit(message);
}
