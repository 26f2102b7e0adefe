// How many of Kuma's API server cases meshdesk answers alike (status code and body, error texts included).
// `npx tsx scripts/conformance/api.ts [--list]`: --list prints each action that differs.
import { apiCases, runApiCase } from '../../test/kuma/support/api-cases.js';

const results = [];
for (const apiCase of apiCases()) results.push(...(await runApiCase(apiCase)));
const matching = results.filter(({ matches }) => matches).length;
const sameStatus = results.filter(({ action, status }) => action.status === status).length;

if (process.argv.includes('--list')) {
  for (const { action, status, body } of results.filter(({ matches }) => !matches)) {
    console.log(`✗ ${action.id}: ${action.method} ${action.path}`);
    console.log(`  Kuma:     ${action.status} ${JSON.stringify(action.golden ?? '(body not compared)')}`);
    console.log(`  meshdesk: ${status} ${JSON.stringify(body)}`);
  }
}
console.log(`api: ${matching} of ${results.length} api cases match (status and body)`);
console.log(`api: ${sameStatus} of ${results.length} api cases get the same status code`);
