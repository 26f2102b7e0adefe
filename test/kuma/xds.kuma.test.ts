// Kuma conformance of the sidecar configuration: for every case of ../shared/kuma-cases/xds
// (generator and plugin goldens) and xds-e2e (what a running kuma-cp sent to real sidecars),
// meshdesk's resources from the case's meshdesk.yaml must generate the same names and in-scope
// fields, except where test/kuma/known-differences.ts says why not. `npx tsx
// scripts/conformance/xds.ts --details` prints the same comparison.
import { describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES } from './known-differences.js';
import { loadXdsCases } from './support/xds-cases.js';
import { compareCaseProxy, type Comparison } from './support/xds-score.js';

const results = loadXdsCases().map((proxy) => ({ proxy, comparisons: compareCaseProxy(proxy) }));

function describeMiss(miss: Comparison): string {
  return `${miss.resource} ${miss.path || '(the resource)'}: Kuma ${miss.kuma ?? '(absent)'}, meshdesk ${miss.meshdesk ?? '(absent)'}`;
}

describe('xDS conformance with Kuma v2.14.3', () => {
  it('finds the cases', () => {
    expect(results.map(({ proxy }) => proxy.area)).toContain('xds');
    expect(results.map(({ proxy }) => proxy.area)).toContain('xds-e2e');
  });

  for (const { proxy, comparisons } of results) {
    describe(`${proxy.area}/${proxy.caseId} (${proxy.proxy})`, () => {
      it('compares Kuma resources with meshdesk ones', () => {
        expect(proxy.kuma.size).toBeGreaterThan(0);
        expect(comparisons.filter((comparison) => comparison.equal).length).toBeGreaterThan(0);
      });

      it('accepts every document of its meshdesk.yaml', () => {
        // A refused policy would leave the fields it sets at their defaults: the case would test nothing.
        expect(proxy.refused).toEqual([]);
      });

      it("generates the names and in-scope fields of Kuma, its policy's fields included, but for known differences", () => {
        const unexplained = comparisons.filter((comparison) => !comparison.equal && !comparison.known);
        expect(unexplained.map(describeMiss)).toEqual([]);
      });
    });
  }

  it('lists no known xDS difference that no longer explains one', () => {
    const used = new Set(results.flatMap(({ comparisons }) => comparisons.map((comparison) => comparison.known)));
    const stale = KNOWN_DIFFERENCES.filter((difference) => difference.area.startsWith('xds') && !used.has(difference));
    expect(stale.map((difference) => `${difference.area} ${difference.case} ${difference.path ?? ''}`)).toEqual([]);
  });
});
