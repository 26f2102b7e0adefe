// MeshHTTPRoute's Envoy output against Kuma v2.14.3's plugin goldens (../shared/kuma-cases/policies/meshhttproute).
import { emptyProxyRules } from '../core/rules.js';
import { describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES, type KnownDifference } from '../../../../test/kuma/known-differences.js';
import { caseBaseResources, policyCases, rulesAsTested } from '../../../../test/kuma/support/policy-cases.js';
import { compareWithGoldens, describeDifference } from '../../../../test/kuma/support/policy-goldens.js';
import type { MeshHTTPRouteConf } from './api.js';
import { applyMeshHTTPRouteToEnvoy } from './envoy.js';

describe('MeshHTTPRoute on Envoy, as Kuma v2.14.3', () => {
  const cases = policyCases('meshhttproute');

  it('finds the cases', () => {
    expect(cases.map((policyCase) => policyCase.id)).toEqual([
      'meshhttproute/basic',
      'meshhttproute/headers-match',
      'meshhttproute/match-priority',
      'meshhttproute/request-header-modifiers',
    ]);
  });

  const usedDifferences = new Set<KnownDifference>();

  for (const policyCase of cases) {
    it(`${policyCase.id}: every resource of the goldens, but for known differences`, () => {
      const { proxy, context, resources } = caseBaseResources(policyCase);
      applyMeshHTTPRouteToEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, resources, rules: rulesAsTested<MeshHTTPRouteConf>(policyCase, 'MeshHTTPRoute'), unapplied: () => {} });
      const differences = compareWithGoldens(policyCase, resources);
      for (const { known } of differences) if (known) usedDifferences.add(known);
      expect(differences.filter((difference) => !difference.known).map(describeDifference)).toEqual([]);
    });
  }

  it('lists no known difference of these cases that no longer explains one', () => {
    const listed = KNOWN_DIFFERENCES.filter((difference) => difference.area === 'policies' && difference.case.startsWith('meshhttproute/'));
    expect(listed.filter((difference) => !usedDifferences.has(difference)).map((difference) => `${difference.case} ${difference.path ?? ''}`)).toEqual([]);
  });
});
