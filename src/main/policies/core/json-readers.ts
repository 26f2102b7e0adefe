// The JSON readers policy validation shares: a wrong type is a violation at its path (Kuma's schema
// message), and `null` reads as absent, as Go's JSON decoding has it.
import { isJsonObject } from '../../resources/proto-json.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { typeMessage } from './spec-shape.js';

export function readObject(value: unknown, path: string, violations: ViolationList): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (isJsonObject(value)) return value;
  violations.add(path, typeMessage('object', value));
  return undefined;
}

export function readString(value: unknown, path: string, violations: ViolationList): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  violations.add(path, typeMessage('string', value));
  return undefined;
}
