// Kuma's API server goldens replayed against a real core: every action answers Kuma's status code and body
// (error texts included), unless known-differences.ts lists it with its reason.
import { describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES } from './known-differences.js';
import { apiCases, runApiCase, type ActionResult } from './support/api-cases.js';

const knownCases = new Map(KNOWN_DIFFERENCES.filter(({ area }) => area === 'api').map((difference) => [difference.case, difference]));

describe("Kuma's API server cases", () => {
  const cases = apiCases();

  it('come from every input file of the API cases, and kumactl apply bodies', () => {
    expect(cases.length).toBeGreaterThan(10);
    expect(cases.flatMap(({ actions }) => actions).length).toBeGreaterThan(35);
  });

  for (const apiCase of cases) {
    it(apiCase.file, async () => {
      const results = await runApiCase(apiCase);
      const comparable = (result: ActionResult) => ({ id: result.action.id, status: result.status, body: result.body });
      for (const result of results) {
        const known = knownCases.get(result.action.id);
        if (known) {
          // A listed difference that starts to match must leave the list.
          expect(result.matches, `${result.action.id} is listed as a known difference but matches`).toBe(false);
          expect(result.status).toBe(known.status ?? result.action.status);
          continue;
        }
        expect(comparable(result)).toEqual({
          id: result.action.id,
          status: result.action.status,
          body: result.action.golden === undefined ? result.body : result.action.golden,
        });
      }
    });
  }
});
