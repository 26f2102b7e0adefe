import { describe, expect, it } from 'vitest';
import { caseBaseResources, policyCases, policyValidationCases, rulesAsTested, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { explainDifferences, goldenDifferences, knownPolicyDifferences } from '../../../../test/kuma/support/policy-goldens.js';
import { ViolationList } from '../../resources/validation-error.js';
import { HTTP_PROTOCOL_OPTIONS } from '../../xds/generate/extension-types.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PolicySpec } from '../core/policy.js';
import type { MeshTimeoutPolicyConf } from './api.js';
import { meshTimeoutPlugin } from './plugin.js';

// Kuma v2.14.3's MeshTimeout plugin and validator cases (../shared/kuma-cases/policies/meshtimeout).

const FILTER = 'filterChains[0].filters[0].typedConfig';
const ROUTE = `${FILTER}.routeConfig.virtualHosts[0].routes[0].route`;
/** The parts of a listener MeshTimeout writes: the HTTP connection manager's and the route's timeouts, or the tcp_proxy's. */
const WRITTEN_ON_LISTENERS = [`${FILTER}.requestHeadersTimeout`, `${FILTER}.commonHttpProtocolOptions`, `${ROUTE}.timeout`, `${ROUTE}.idleTimeout`, `${FILTER}.idleTimeout`];
/** The parts of a cluster: the connect timeout and the upstream HTTP options' idle timeout and durations. */
const WRITTEN_ON_CLUSTERS = ['connectTimeout', `typedExtensionProtocolOptions["${HTTP_PROTOCOL_OPTIONS}"].commonHttpProtocolOptions`];

/** The case's proxy after the plugin, with the split clusters its endpoints name (`other-service-c72efb5be46fae6b`) added as the route plugin would: copies of their service's cluster. */
function applied(policyCase: PolicyCase) {
  const { proxy, context, resources } = caseBaseResources(policyCase);
  for (const name of Object.keys(policyCase.json.endpoints ?? {})) {
    const service = /^(.+)-[0-9a-f]{16}$/.exec(name)?.[1];
    const cluster = service === undefined ? undefined : resources.get(CLUSTER_TYPE_URL, service);
    if (cluster) resources.put(CLUSTER_TYPE_URL, name, { ...cluster, name });
  }
  meshTimeoutPlugin.applyEnvoy({ proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: () => {} });
  return resources;
}

describe('MeshTimeout on Envoy, against Kuma v2.14.3 golden cases', () => {
  const cases = policyCases('meshtimeout');
  const used = new Set<unknown>();

  it.each(cases.map((policyCase) => [policyCase.id, policyCase] as const))("%s writes the golden's timeouts", (id, policyCase) => {
    const resources = applied(policyCase);
    for (const { file, resource } of policyCase.json.goldens) {
      const isListener = resource.startsWith('Listener');
      const typeUrl = isListener ? LISTENER_TYPE_URL : CLUSTER_TYPE_URL;
      const written = isListener ? WRITTEN_ON_LISTENERS : WRITTEN_ON_CLUSTERS;
      const { unexplained, used: explaining } = explainDifferences(id, goldenDifferences(policyCase, file, typeUrl, resources, written));
      explaining.forEach((entry) => used.add(entry));
      expect(unexplained, file).toEqual([]);
    }
  });

  it('lists no known difference that no longer explains one', () => {
    expect(cases.flatMap(({ id }) => knownPolicyDifferences(id)).filter((entry) => !used.has(entry))).toEqual([]);
  });

  it('attributes the fields a rule set to its policy item, and not the defaults it filled in', () => {
    const resources = applied(cases.find(({ id }) => id === 'meshtimeout/tcp-outbound-route')!);
    const origin = { type: 'MeshTimeout', mesh: 'default', name: 'timeout-second-service', item: 'spec.to[0]' };
    expect(resources.attributions()).toEqual([
      { typeUrl: LISTENER_TYPE_URL, resource: 'outbound:127.0.0.1:10002', path: 'filter_chains[0].filters[0].typed_config.idle_timeout', origins: [origin] },
      { typeUrl: CLUSTER_TYPE_URL, resource: 'second-service', path: 'connect_timeout', origins: [origin] },
    ]);
  });
});

describe('MeshTimeout validation, against Kuma v2.14.3 validator cases', () => {
  // Every case: the violations in `default` confs are this plugin's; the others (targetRefs, to/from/rules, matches) are the shared checks'.
  for (const { name, universalResource, expected } of policyValidationCases('meshtimeout')) {
    it(name, () => {
      const violations = new ViolationList();
      meshTimeoutPlugin.validate(universalResource.spec as PolicySpec<MeshTimeoutPolicyConf>, violations);
      expect(violations.violations).toEqual(expected === 'valid' ? [] : expected.filter(({ field }) => field.includes('.default')));
    });
  }
});
