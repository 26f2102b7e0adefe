/**
 * An Envoy message in proto3 JSON form, as Envoy's docs write it: snake_case field names, enums by
 * name, Any fields as `{ "@type": "type.googleapis.com/…", …fields }`, durations as strings ("5s"),
 * wrappers (`UInt32Value`…) as bare values, Struct as plain JSON, 64-bit integers as strings.
 */
export type ProtoJson = { readonly [field: string]: unknown };

/** A `google.protobuf.Any` on the wire: the type URL and the encoded message. */
export interface EncodedAny {
  type_url: string;
  value: Uint8Array;
}

/** The well-known types whose proto3 JSON form is not a plain object of their fields. */
export const WELL_KNOWN = {
  any: '.google.protobuf.Any',
  duration: '.google.protobuf.Duration',
  timestamp: '.google.protobuf.Timestamp',
  struct: '.google.protobuf.Struct',
  value: '.google.protobuf.Value',
  listValue: '.google.protobuf.ListValue',
  fieldMask: '.google.protobuf.FieldMask',
} as const;

/** Wrapper types (`google.protobuf.UInt32Value`…) are written in JSON as the bare value they wrap. */
export const WRAPPER_SCALARS: { readonly [fullName: string]: string } = {
  '.google.protobuf.DoubleValue': 'double',
  '.google.protobuf.FloatValue': 'float',
  '.google.protobuf.Int64Value': 'int64',
  '.google.protobuf.UInt64Value': 'uint64',
  '.google.protobuf.Int32Value': 'int32',
  '.google.protobuf.UInt32Value': 'uint32',
  '.google.protobuf.BoolValue': 'bool',
  '.google.protobuf.StringValue': 'string',
  '.google.protobuf.BytesValue': 'bytes',
};

/** True for the well-known types with a special JSON form (they nest as `{ "@type", "value" }` in an Any). */
export function hasSpecialJson(fullName: string): boolean {
  return (Object.values(WELL_KNOWN) as string[]).includes(fullName) || fullName in WRAPPER_SCALARS;
}

export const SIXTY_FOUR_BIT_SCALARS = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

/** The values an integer scalar of this kind (`uint32`, `sfixed64`…) holds, inclusive. */
export function integerRange(kind: string): { min: bigint; max: bigint } {
  const unsigned = kind.startsWith('uint') || kind.startsWith('fixed');
  const bits = SIXTY_FOUR_BIT_SCALARS.has(kind) ? 64n : 32n;
  return unsigned ? { min: 0n, max: (1n << bits) - 1n } : { min: -(1n << (bits - 1n)), max: (1n << (bits - 1n)) - 1n };
}

/** Longest Duration proto3 JSON allows: 10,000 years. */
export const MAX_DURATION_SECONDS = 315_576_000_000;

/** The value a scalar field of this kind has when it is not set. */
export function defaultScalar(kind: string): unknown {
  if (kind === 'string') return '';
  if (kind === 'bool') return false;
  if (kind === 'bytes') return new Uint8Array();
  return 0;
}
