// MeshTCPRoute's Envoy output against Kuma v2.14.3's plugin goldens (../shared/kuma-cases/policies/meshtcproute).
// As in meshdesk's pipeline, MeshHTTPRoute runs first with its rules, where a case has them.
import { describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES, type KnownDifference } from '../../../../test/kuma/known-differences.js';
import { caseBaseResources, policyCases, rulesAsTested } from '../../../../test/kuma/support/policy-cases.js';
import { compareWithGoldens, describeDifference } from '../../../../test/kuma/support/policy-goldens.js';
import { emptyProxyRules } from '../core/rules.js';
import type { MeshHTTPRouteConf } from '../meshhttproute/api.js';
import { applyMeshHTTPRouteToEnvoy } from '../meshhttproute/envoy.js';
import type { MeshTCPRouteConf } from './api.js';
import { applyMeshTCPRouteToEnvoy } from './envoy.js';

describe('MeshTCPRoute on Envoy, as Kuma v2.14.3', () => {
  const cases = policyCases('meshtcproute').filter((policyCase) => policyCase.json.goldens.length > 0);

  it('finds the cases with goldens', () => {
    expect(cases.map((policyCase) => policyCase.id)).toEqual(['meshtcproute/kafka', 'meshtcproute/meshhttproute-clash-http-destination', 'meshtcproute/redirect-traffic']);
  });

  const usedDifferences = new Set<KnownDifference>();

  for (const policyCase of cases) {
    it(`${policyCase.id}: every resource of the goldens, but for known differences`, () => {
      const { proxy, context, resources } = caseBaseResources(policyCase);
      const unapplied = () => {};
      applyMeshHTTPRouteToEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, resources, rules: rulesAsTested<MeshHTTPRouteConf>(policyCase, 'MeshHTTPRoute'), unapplied });
      applyMeshTCPRouteToEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, resources, rules: rulesAsTested<MeshTCPRouteConf>(policyCase, 'MeshTCPRoute'), unapplied });
      const differences = compareWithGoldens(policyCase, resources);
      for (const { known } of differences) if (known) usedDifferences.add(known);
      expect(differences.filter((difference) => !difference.known).map(describeDifference)).toEqual([]);
    });
  }

  it('changes nothing where no route rule applies, so a proxy without route policies keeps the generated defaults', () => {
    for (const policyCase of cases) {
      const { proxy, context, resources } = caseBaseResources(policyCase);
      const before = resources.toResources();
      applyMeshHTTPRouteToEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, resources, rules: emptyProxyRules(), unapplied: () => {} });
      applyMeshTCPRouteToEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, resources, rules: emptyProxyRules(), unapplied: () => {} });
      expect(resources.toResources()).toEqual(before);
      expect(resources.attributions()).toEqual([]);
    }
  });

  it('lists no known difference of these cases that no longer explains one', () => {
    const listed = KNOWN_DIFFERENCES.filter((difference) => difference.area === 'policies' && difference.case.startsWith('meshtcproute/'));
    expect(listed.filter((difference) => !usedDifferences.has(difference)).map((difference) => `${difference.case} ${difference.path ?? ''}`)).toEqual([]);
  });
});
