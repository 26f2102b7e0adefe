// What a policy's numbers and durations can be so that a proxy can be sent them: the range of
// Kuma's Go field (its JSON decoding refuses anything else), and, for a field that lands in one
// Envoy field, that field's proto type and Envoy's validate rules on it, read from the protos the
// encoder uses. One place knows the ranges; the spec shapes only name where each value goes.
import protobuf from 'protobufjs';
import { durationParts, readGoDuration } from '../../resources/go-duration.js';
import { WELL_KNOWN, WRAPPER_SCALARS, integerRange } from '../../xds/protocol/proto-json.js';
import { findMessageType, fullNameOf } from '../../xds/protocol/proto-root.js';
import { ruleViolations } from '../../xds/protocol/validation-rules.js';

export type IntegerKind = 'int32' | 'uint32' | 'int64' | 'uint64';

/** A number, duration or text that must be servable: its Go kind and, when it lands in one, the Envoy field it sets. */
export interface ServedShape {
  readonly served: IntegerKind | 'duration' | 'string';
  /** `envoy.config.cluster.v3.CircuitBreakers.Thresholds.max_connections`: a message type's full name, a dot, the field. */
  readonly envoyField?: string;
}

/** An integer of Kuma's Go kind, bounded further by the Envoy field it sets, if one. */
export const servedInteger = (kind: IntegerKind, envoyField?: string): ServedShape => ({ served: kind, ...(envoyField && { envoyField }) });
/** A Go duration, bounded further by the google.protobuf.Duration field it sets, if one. */
export const servedDuration = (envoyField?: string): ServedShape => ({ served: 'duration', ...(envoyField && { envoyField }) });

/** A string that lands in `envoyField` (or is one item of it, when it is a list), bounded by Envoy's validate rules on it (a name Envoy requires non-empty). */
export const servedString = (envoyField: string): ServedShape => ({ served: 'string', envoyField });

/** The JSON type a served value is written as. */
export const servedJsonType = (shape: ServedShape): 'string' | 'integer' => (shape.served === 'duration' || shape.served === 'string' ? 'string' : 'integer');

/** What keeps `value` (of the JSON type the shape takes: an integer, or a string for a duration or text) from being served; empty when nothing. */
export function servedProblems(shape: ServedShape, value: number | string): string[] {
  const field = shape.envoyField === undefined ? undefined : envoyField(shape.envoyField, shape.served === 'string');
  // An item of a repeated field (a list of header names) is checked by the list's item rules.
  if (shape.served === 'string') return field!.field.repeated ? envoyRuleProblems(field!, [value]) : envoyRuleProblems(field!, value);
  return shape.served === 'duration' ? durationProblems(String(value), field) : integerProblems(shape.served, Number(value), field);
}

function integerProblems(kind: IntegerKind, value: number, field: EnvoyField | undefined): string[] {
  const integer = BigInt(value);
  const goRange = integerRange(kind);
  const envoyRange = field?.integerKind === undefined ? goRange : integerRange(field.integerKind);
  const min = goRange.min > envoyRange.min ? goRange.min : envoyRange.min;
  const max = goRange.max < envoyRange.max ? goRange.max : envoyRange.max;
  if (integer < min || integer > max) {
    const narrowed = field?.integerKind !== undefined && (envoyRange.min > goRange.min || envoyRange.max < goRange.max);
    const envoyWithinKuma = envoyRange.min >= goRange.min && envoyRange.max <= goRange.max;
    const why = !narrowed ? `a ${kind}` : envoyWithinKuma ? `a ${field.integerKind}, as Envoy's ${field.label}` : `a ${kind} in Kuma, a ${field.integerKind} in Envoy's ${field.label}`;
    return [`must be in inclusive range [${min}, ${max}] (${why})`];
  }
  if (!field) return [];
  const converted = SIXTY_FOUR_BIT_KINDS.has(field.integerKind ?? '') ? String(integer) : value;
  return envoyRuleProblems(field, field.wrapped ? { value: converted } : converted);
}

const SIXTY_FOUR_BIT_KINDS = new Set(['int64', 'uint64']);

function durationProblems(text: string, field: EnvoyField | undefined): string[] {
  const read = readGoDuration(text);
  // Go's message, which Kuma's decoding answers; past an int64 of nanoseconds (292 years) is included,
  // so no Go duration reaches the longest google.protobuf.Duration (10,000 years).
  if (read === undefined) return [`time: invalid duration ${JSON.stringify(text)}`];
  if (!read.wholeNanoseconds) return [`${JSON.stringify(text)} has a fraction of a nanosecond: a duration holds whole nanoseconds`];
  if (!field) return [];
  const { sign, seconds, nanos } = durationParts(read.nanoseconds);
  return envoyRuleProblems(field, { seconds: `${sign}${seconds}`, nanos: Number(`${sign}${nanos}`) });
}

function envoyRuleProblems(field: EnvoyField, converted: unknown): string[] {
  return ruleViolations(field.field, converted).map(({ problem }) => `must be servable: Envoy's ${field.label} ${problem}`);
}

interface EnvoyField {
  field: protobuf.Field;
  /** `CircuitBreakers.Thresholds.max_connections` */
  label: string;
  /** The integer kind it holds (a wrapper's), undefined for a duration. */
  integerKind?: string;
  wrapped: boolean;
}

const fields = new Map<string, EnvoyField>();

/** The field a shape names; a name that resolves to none, or to a field of another kind, is a bug in a spec shape, so it throws. */
function envoyField(name: string, text = false): EnvoyField {
  let found = fields.get(name);
  if (found) return found;
  const dot = name.lastIndexOf('.');
  const field = findMessageType(name.slice(0, dot))?.fields[name.slice(dot + 1)];
  if (!field) throw new Error(`${name} names no field of the Envoy proto root`);
  const resolved = field.resolvedType;
  const typeName = resolved instanceof protobuf.Type ? fullNameOf(resolved) : undefined;
  const wrapped = typeName !== undefined && typeName in WRAPPER_SCALARS;
  const integerKind = wrapped ? WRAPPER_SCALARS[typeName] : typeName === undefined ? field.type : undefined;
  if (text ? field.type !== 'string' : integerKind === undefined ? typeName !== WELL_KNOWN.duration : !/^u?int(32|64)$/.test(integerKind)) {
    throw new Error(`${name} holds a ${typeName ?? field.type}, not ${text ? 'a string' : 'an integer or a duration'}`);
  }
  const label = name.replace(/^.*\.v3\./, '');
  fields.set(name, (found = { field, label, wrapped, ...(!text && integerKind !== undefined && { integerKind }) }));
  return found;
}
