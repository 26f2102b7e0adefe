import { emptyProxyRules } from '../core/rules.js';
import { describe, expect, it } from 'vitest';
import { caseBaseResources, goldenResources, policyCases, policyValidationCases, rulesAsTested, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { at, explainDifferences, goldenDifferences, knownPolicyDifferences, subObjectDifferences, type GoldenDifference } from '../../../../test/kuma/support/policy-goldens.js';
import { toKumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import { ViolationList } from '../../resources/validation-error.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { EnvoyResources } from '../core/envoy-resources.js';
import type { PolicySpec } from '../core/policy.js';
import { dataplaneTagSet } from '../core/proxy-tags.js';
import type { MeshLoadBalancingStrategyConf } from './api.js';
import { proxyZone } from './locality-aware.js';
import { meshLoadBalancingStrategyPlugin } from './plugin.js';

// Kuma v2.14.3's MeshLoadBalancingStrategy plugin and validator cases (../shared/kuma-cases/policies/meshloadbalancingstrategy).
// Kuma's tests run with mTLS on; the compared parts (balancer, hash policies, localities) do not depend on TLS.

/** The parts of a cluster the plugin writes; its endpoints are compared with meshdesk's assignment (see below). */
const CLUSTER_PARTS = ['lbPolicy', 'leastRequestLbConfig', 'ringHashLbConfig', 'maglevLbConfig', 'commonLbConfig'];
const ASSIGNMENT_PARTS = ['endpoints', 'policy'];
const ROUTES = 'filterChains[0].filters[0].typedConfig.routeConfig.virtualHosts[0].routes';

/**
 * Kuma's test builds payment and frontend as STATIC clusters with inline endpoints; meshdesk's
 * outbound clusters are EDS, so a golden cluster's `loadAssignment` is compared with meshdesk's
 * ClusterLoadAssignment of that cluster.
 */
function clusterDifferences(policyCase: PolicyCase, file: string, resources: EnvoyResources): GoldenDifference[] {
  const found = goldenDifferences(policyCase, file, CLUSTER_TYPE_URL, resources, CLUSTER_PARTS);
  for (const [, golden] of goldenResources(policyCase.goldens.get(file)!)) {
    if (golden['loadAssignment'] === undefined) continue;
    const name = String(golden['name']);
    const mine = toKumaJson(ENDPOINT_TYPE_URL, resources.get(ENDPOINT_TYPE_URL, name)!);
    for (const part of ASSIGNMENT_PARTS) found.push(...subObjectDifferences(name, `loadAssignment.${part}`, at(golden, `loadAssignment.${part}`), at(mine, part)));
  }
  return found;
}

/** Each route's hash policies, keyed by the route's position. */
function routeDifferences(policyCase: PolicyCase, file: string, resources: EnvoyResources): GoldenDifference[] {
  return [...goldenResources(policyCase.goldens.get(file)!).values()].flatMap((golden) => {
    const name = String(golden['name']);
    const mine = toKumaJson(LISTENER_TYPE_URL, resources.get(LISTENER_TYPE_URL, name)!);
    const routes = (at(golden, ROUTES) ?? []) as unknown[];
    return routes.flatMap((_route, index) => subObjectDifferences(name, `${ROUTES}[${index}].route.hashPolicy`, at(golden, `${ROUTES}[${index}].route.hashPolicy`), at(mine, `${ROUTES}[${index}].route.hashPolicy`)));
  });
}

function differences(policyCase: PolicyCase, file: string, resources: EnvoyResources): GoldenDifference[] {
  if (file.includes('.listeners.')) return routeDifferences(policyCase, file, resources);
  if (file.includes('.clusters.')) return clusterDifferences(policyCase, file, resources);
  return goldenDifferences(policyCase, file, ENDPOINT_TYPE_URL, resources, ASSIGNMENT_PARTS);
}

describe('MeshLoadBalancingStrategy on Envoy: Kuma golden cases', () => {
  const cases = policyCases('meshloadbalancingstrategy');
  const used = new Set<unknown>();

  it.each(cases.map((policyCase) => [policyCase.id, policyCase] as const))('%s', (id, policyCase) => {
    const { proxy, context, resources } = caseBaseResources(policyCase);
    // The proxy's zone comes from its inbounds' kuma.io/zone tag, as the case's Dataplane has it.
    expect(proxyZone(dataplaneTagSet(proxy.dataplane))).toBe(policyCase.json.proxyZone);
    meshLoadBalancingStrategyPlugin.applyEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: () => {} });

    for (const { file } of policyCase.json.goldens) {
      const { unexplained, used: explaining } = explainDifferences(id, differences(policyCase, file, resources));
      explaining.forEach((entry) => used.add(entry));
      expect(unexplained, file).toEqual([]);
    }
  });

  it('lists no known difference that no longer explains one', () => {
    const stale = cases.flatMap(({ id }) => knownPolicyDifferences(id)).filter((entry) => !used.has(entry));
    expect(stale).toEqual([]);
  });

  it('attributes what it set to the policy that gave it', () => {
    const policyCase = cases.find(({ id }) => id === 'meshloadbalancingstrategy/basic')!;
    const { proxy, context, resources } = caseBaseResources(policyCase);
    meshLoadBalancingStrategyPlugin.applyEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: () => {} });
    const set = resources.attributions().map(({ resource, path, origins }) => `${resource} ${path} ${origins.map(({ name, item }) => `${name}:${item}`).join()}`);
    expect(set).toEqual(
      expect.arrayContaining([
        'outbound:127.0.0.1:27778 filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[0].route.hash_policy lb-backend:spec.to[2]',
        'backend lb_policy lb-backend:spec.to[0]',
        'payment ring_hash_lb_config lb-backend:spec.to[2]',
        'backend endpoints lb-backend:spec.to[0]',
      ]),
    );
  });
});

describe('MeshLoadBalancingStrategy validation: Kuma validator cases', () => {
  const inConf = /^spec\.to\[\d+\]\.default/;
  const cases = policyValidationCases('meshloadbalancingstrategy');

  it.each(cases.map((validationCase) => [validationCase.name, validationCase] as const))('%s', (_name, validationCase) => {
    const violations = new ViolationList();
    meshLoadBalancingStrategyPlugin.validate(validationCase.universalResource['spec'] as PolicySpec<MeshLoadBalancingStrategyConf>, violations);
    // Kuma compares the violations as a set. Those on targetRef kinds are the shared spec checks' (not this plugin's).
    const expected = validationCase.expected === 'valid' ? [] : validationCase.expected.filter(({ field }) => inConf.test(field));
    expect(violations.violations).toEqual(expect.arrayContaining(expected));
    expect(violations.violations).toHaveLength(expected.length);
  });
});
