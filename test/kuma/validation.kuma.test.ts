// Kuma's validation goldens: every case decided as Kuma decides it, with Kuma's field paths and messages,
// unless known-differences.ts lists it with its reason.
import { describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES } from './known-differences.js';
import { runValidationCase, validationCases } from './support/validation-cases.js';

const knownCases = new Set(KNOWN_DIFFERENCES.filter(({ area }) => area === 'validation').map((difference) => difference.case));

describe("Kuma's validation cases", () => {
  const cases = validationCases();

  it('come from the Dataplane validator table and the API server PUT cases', () => {
    expect(cases.filter(({ id }) => id.startsWith('validation/')).length).toBe(80);
    expect(cases.filter(({ id }) => id.startsWith('api/')).length).toBeGreaterThan(10);
    expect(new Set(cases.map(({ id }) => id)).size).toBe(cases.length);
  });

  for (const testCase of cases) {
    if (knownCases.has(testCase.id)) {
      it(`${testCase.id} (a known difference: still differs)`, () => {
        expect(runValidationCase(testCase).matches).toBe(false);
      });
      continue;
    }
    it(testCase.id, () => {
      const result = runValidationCase(testCase);
      expect({ accepted: result.accepted, violations: testCase.violations === undefined ? undefined : result.violations }).toEqual({
        accepted: testCase.accept,
        violations: testCase.violations,
      });
      expect(result.matches).toBe(true);
    });
  }
});
