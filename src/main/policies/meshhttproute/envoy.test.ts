// MeshHTTPRoute's Envoy output against Kuma v2.14.3's plugin goldens (../shared/kuma-cases/policies/meshhttproute).
import { describe, expect, it } from 'vitest';
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

  for (const policyCase of cases) {
    it(`${policyCase.id}: every resource of the goldens, but for known differences`, () => {
      const { proxy, context, resources } = caseBaseResources(policyCase);
      applyMeshHTTPRouteToEnvoy({ proxy, context, resources, rules: rulesAsTested<MeshHTTPRouteConf>(policyCase, 'MeshHTTPRoute'), unapplied: () => {} });
      const differences = compareWithGoldens(policyCase, resources);
      expect(differences.filter((difference) => !difference.known).map(describeDifference)).toEqual([]);
    });
  }
});
