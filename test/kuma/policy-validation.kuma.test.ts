// Kuma's policy validator cases: every case decided as Kuma decides it, with Kuma's field paths and
// messages, unless known-differences.ts lists it. A case some of whose violations are about the
// policy's own conf (under `default`, a route's rules…) needs that policy's plugin `validate`: until the
// plugin is registered, the case is held to the rest of its violations (the shared checks).
import { describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES } from './known-differences.js';
import { policyValidationFolders, runPolicyValidationCases } from './support/policy-validation-run.js';

const known = KNOWN_DIFFERENCES.filter(({ area }) => area === 'policy-validation');
const knownCases = new Set(known.map((difference) => difference.case));

describe("Kuma's policy validator cases", () => {
  const folders = policyValidationFolders();
  const runs = folders.flatMap(runPolicyValidationCases);

  it('cover every policy meshdesk stores', () => {
    expect(folders).toHaveLength(11);
    expect(runs.length).toBeGreaterThan(140);
  });

  it('list no known difference that is not a case', () => {
    expect(known.filter((difference) => !runs.some((run) => run.id === difference.case))).toEqual([]);
  });

  for (const run of runs) {
    if (knownCases.has(run.id)) {
      it(`${run.id} (a known difference: still differs)`, () => expect(run.matches).toBe(false));
      continue;
    }
    it(`${run.id}${run.needsPlugin ? " (shared checks; the rest needs the plugin's validate)" : ''}`, () => {
      expect(run.violations).toEqual(run.expected);
    });
  }
});
