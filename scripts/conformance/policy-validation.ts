// How many of Kuma's policy validator cases meshdesk decides alike (accept/reject, field path, message),
// per policy. `npx tsx scripts/conformance/policy-validation.ts [--list]`: --list prints each case that differs.
// A case whose violations are partly about the policy's own conf is compared, while the policy's plugin is
// not registered, on the rest of its violations; those cases are counted apart.
import { policyValidationFolders, runPolicyValidationCases } from '../../test/kuma/support/policy-validation-run.js';

let matched = 0;
let total = 0;
for (const folder of policyValidationFolders()) {
  const runs = runPolicyValidationCases(folder);
  const matching = runs.filter((run) => run.matches);
  const partial = matching.filter((run) => run.needsPlugin).length;
  matched += matching.length;
  total += runs.length;
  console.log(`${folder}: ${matching.length} of ${runs.length} match${partial > 0 ? ` (${partial} on the shared checks only: needs the plugin's validate)` : ''}`);
  if (process.argv.includes('--list')) {
    for (const run of runs.filter((each) => !each.matches)) {
      console.log(`  ✗ ${run.id}`);
      console.log(`    Kuma:     ${JSON.stringify(run.expected)}`);
      console.log(`    meshdesk: ${JSON.stringify(run.violations)}`);
    }
  }
}
console.log(`policy validation: ${matched} of ${total} cases match`);
