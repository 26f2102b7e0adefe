import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateResource, validateResourceInput } from '../../src/main/resources/validate.js';
import { ValidationError } from '../../src/main/resources/validation-error.js';
import { POLICY_CASES_DIR, policyValidationCases } from '../kuma/support/policy-cases.js';
import { mutationOf, unexpectedValue } from './json-mutation.js';
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

const mutated = fc
  .tuple(fc.constantFrom(...DOCUMENTS), fc.nat(), unexpectedValue)
  .map(([document, where, value]) => mutationOf(document, where, value));

describe('policy documents changed anywhere', () => {
  it(`reads ${DOCUMENTS.length} of Kuma's validator documents as given`, () => {
    expect(DOCUMENTS.length).toBeGreaterThan(100);
  });

  it('give a policy or a ValidationError, never another error', () => {
    fc.assert(
      fc.property(mutated, (input) => {
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
