// One random change to a JSON document: the value at one of its places replaced by something a
// user, an old tool or a hostile client may put there, or the field removed.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Step = string | number;

/** What may arrive anywhere (undefined: the field removed). */
export const unexpectedValue: fc.Arbitrary<Json | undefined> = fc.oneof(
  fc.jsonValue() as fc.Arbitrary<Json>,
  fc.constantFrom<Json | undefined>(
    undefined,
    null,
    '',
    -1,
    0,
    1,
    100,
    101,
    1e300,
    -0.5,
    '0s',
    '-1s',
    '1e9h',
    '100',
    '99999999999999999999',
    '/',
    'Mesh',
    [],
    {},
    // JSON can name a list's or an object's toString: String() of it throws.
    JSON.parse('[{"toString":0}]') as Json,
    JSON.parse('{"toString":0,"valueOf":0}') as Json,
    // ... or an object's built-in members, as fields or as values looked up in a table.
    JSON.parse('{"__proto__":{"default":"x"},"constructor":{"a":1}}') as Json,
    '__proto__',
    'constructor',
  ),
);

/** Every place of a document below its root: the path to each value. */
function placesOf(value: unknown, at: Step[] = []): Step[][] {
  const children: [Step, unknown][] = Array.isArray(value) ? value.map((child, index) => [index, child]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];
  return children.flatMap(([step, child]) => [[...at, step], ...placesOf(child, [...at, step])]);
}

function withValueAt(document: unknown, place: readonly Step[], value: Json | undefined): unknown {
  if (place.length === 0) return value;
  const [step, ...rest] = place as [Step, ...Step[]];
  const changed = withValueAt((document as Record<Step, unknown>)[step], rest, value);
  // Removed from a list: the items after it move up (JSON has no holes).
  if (Array.isArray(document)) return changed === undefined ? document.toSpliced(step as number, 1) : document.with(step as number, changed);
  const copy: Record<Step, unknown> = { ...(document as object) };
  copy[step] = changed;
  if (changed === undefined) delete copy[step];
  return copy;
}

/** `document` with the value at its `where`-th place (modulo their number) replaced by `value`. */
export function mutationOf<T>(document: T, where: number, value: Json | undefined): T {
  const places = placesOf(document);
  return places.length === 0 ? document : (withValueAt(document, places[where % places.length]!, value) as T);
}
