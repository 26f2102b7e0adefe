// How many of Kuma's validation cases meshdesk decides alike (accept/reject, field path, message).
// `npx tsx scripts/conformance/validation.ts [--list]`: --list prints each case that differs.
import { runValidationCase, validationCases } from '../../test/kuma/support/validation-cases.js';

const cases = validationCases();
const results = cases.map((testCase) => ({ testCase, result: runValidationCase(testCase) }));
const matching = results.filter(({ result }) => result.matches).length;
const sameDecision = results.filter(({ testCase, result }) => result.accepted === testCase.accept).length;

if (process.argv.includes('--list')) {
  for (const { testCase, result } of results.filter(({ result }) => !result.matches)) {
    console.log(`✗ ${testCase.id}`);
    console.log(`  Kuma:     ${testCase.accept ? 'accepts' : 'rejects'} ${JSON.stringify(testCase.violations ?? '(no fields)')}`);
    console.log(`  meshdesk: ${result.accepted ? 'accepts' : 'rejects'} ${JSON.stringify(result.violations)}`);
  }
}
console.log(`validation: ${matching} of ${cases.length} cases match (accept/reject, path, message)`);
console.log(`validation: ${sameDecision} of ${cases.length} cases get the same accept/reject decision`);
