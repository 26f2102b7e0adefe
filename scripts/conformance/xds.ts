// `npx tsx scripts/conformance/xds.ts [--details]`: how much of Kuma v2.14.3's xDS golden data
// (../shared/kuma-cases/xds and xds-e2e) meshdesk's generator reproduces, as the four figures of
// issue 13. Known differences (test/kuma/known-differences.ts) count as misses here.
import { loadXdsCases } from '../../test/kuma/support/xds-cases.js';
import { compareCaseProxy, percent, scoreXds } from '../../test/kuma/support/xds-score.js';

const details = process.argv.includes('--details');
const results = loadXdsCases().map((proxy) => ({ proxy, comparisons: compareCaseProxy(proxy) }));
const scores = scoreXds(results);

const line = (label: string, score: { equal: number; total: number }) =>
  console.log(`${label.padEnd(34)} ${percent(score).padStart(8)}  (${score.equal}/${score.total})`);
line('xDS names', scores.names);
line('xDS structure', scores.structure);
line('xDS e2e (running kuma-cp) names', scores.e2eNames);
line('xDS e2e (running kuma-cp) structure', scores.e2eStructure);
line('xDS e2e policy fields (apart)', scores.e2ePolicyFields);

if (details) {
  for (const { proxy, comparisons } of results) {
    const misses = comparisons.filter((comparison) => !comparison.equal);
    console.log(`\n== ${proxy.area}/${proxy.caseId} (${proxy.proxy}): ${misses.length} differences`);
    for (const refused of proxy.refused) console.log(`   refused by meshdesk: ${refused}`);
    for (const miss of misses) {
      const tag = miss.isPolicyField ? ' [policy]' : miss.known ? ' [known]' : '';
      console.log(`   ${miss.resource} ${miss.path || '(resource)'}: kuma ${miss.kuma ?? '-'} meshdesk ${miss.meshdesk ?? '-'}${tag}`);
    }
  }
}
