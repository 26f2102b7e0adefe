import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateResource, validateResourceInput } from '../../src/main/resources/validate.js';
import { ValidationError } from '../../src/main/resources/validation-error.js';
import { POLICY_CASES_DIR, policyValidationCases } from '../kuma/support/policy-cases.js';
import { numRuns } from './run-counts.js';

/**
 * Kuma's validator cases, each policy changed at one random place: whatever a policy's fields
 * hold, validation gives a policy or a ValidationError naming what is wrong, never another error
 * (the API would answer it as a 500). Random JSON alone rarely reaches a conf's validator: the
 * cases' documents do, and a mutation then puts the unexpected value where a validator reads.
 */

const DOCUMENTS = fs
  .readdirSync(POLICY_CASES_DIR)
  .filter((folder) => fs.existsSync(path.join(POLICY_CASES_DIR, folder, 'validation.json')))
  .flatMap((folder) => policyValidationCases(folder).map(({ universalResource }) => universalResource));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Step = string | number;

/** Every place of a document: the path to each value, the document itself included. */
function placesOf(value: Json, at: Step[] = []): Step[][] {
  const children: [Step, Json][] = Array.isArray(value) ? value.map((child, index) => [index, child]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];
  return [at, ...children.flatMap(([step, child]) => placesOf(child, [...at, step]))];
}

/** The document with the value at `place` replaced (undefined: the field removed). */
function withValueAt(document: Json, place: readonly Step[], value: Json | undefined): Json | undefined {
  if (place.length === 0) return value;
  const [step, ...rest] = place as [Step, ...Step[]];
  const copy = (Array.isArray(document) ? [...document] : { ...(document as Record<string, Json>) }) as Record<Step, Json | undefined>;
  copy[step] = withValueAt(copy[step] as Json, rest, value);
  if (copy[step] === undefined) delete copy[step];
  return copy as Json;
}

/** What a user, an old tool or a hostile client may put anywhere. */
const unexpected: fc.Arbitrary<Json | undefined> = fc.oneof(
  fc.jsonValue() as fc.Arbitrary<Json>,
  fc.constantFrom<Json | undefined>(
    undefined,
    null,
    '',
    -1,
    0,
    1e300,
    -0.5,
    '-1s',
    '1e9h',
    '99999999999999999999',
    'Mesh',
    [],
    {},
    // JSON can name a list's or an object's toString: String() of it throws.
    JSON.parse('[{"toString":0}]') as Json,
    JSON.parse('{"toString":0,"valueOf":0}') as Json,
  ),
);

export const mutatedForProbe = fc
  .tuple(fc.constantFrom(...DOCUMENTS), fc.nat(), unexpected)
  .map(([document, pick, value]) => {
    const places = placesOf(document as Json).filter((place) => place.length > 0);
    return withValueAt(document as Json, places[pick % places.length]!, value);
  });

describe('policy documents changed anywhere', () => {
  it(`reads ${DOCUMENTS.length} of Kuma's validator documents as given`, () => {
    expect(DOCUMENTS.length).toBeGreaterThan(100);
  });

  it('give a policy or a ValidationError, never another error', () => {
    fc.assert(
      fc.property(mutatedForProbe, (input) => {
        try {
          validateResourceInput(validateResource(input));
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          expect(error.violations.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: numRuns(3000, 200_000) },
    );
  });
});
