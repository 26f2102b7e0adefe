import { describe, expect, it } from 'vitest';
import { HTTP_PROTOCOL_OPTIONS } from '../../xds/generate/extension-types.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { ViolationList } from '../../resources/validation-error.js';
import type { EnvoyResources } from '../core/envoy-resources.js';
import type { PolicySpec } from '../core/policy.js';
import { policyCases, policyValidationCases, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import {
  applyEnvoyToCase,
  expectPartsMatch,
  httpConnectionManagerOf,
  kumaJsonOf,
  pick,
  routesOf,
  tcpProxyOf,
  type ComparedPart,
} from '../../../../test/kuma/support/policy-parts.js';
import type { KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import type { MeshTimeoutPolicyConf } from './api.js';
import { meshTimeoutPlugin } from './plugin.js';

/** The split clusters a case's endpoints name (`other-service-c72efb5be46fae6b`), as the route plugin would add them: copies of their service's cluster. */
function addSplitClusters(policyCase: PolicyCase) {
  return (resources: EnvoyResources) => {
    for (const name of Object.keys(policyCase.json.endpoints ?? {})) {
      const service = /^(.+)-[0-9a-f]{16}$/.exec(name)?.[1];
      const cluster = service === undefined ? undefined : resources.get(CLUSTER_TYPE_URL, service);
      if (cluster) resources.put(CLUSTER_TYPE_URL, name, { ...cluster, name });
    }
  };
}

/** The parts of a golden Listener or Cluster that MeshTimeout writes, from Kuma's golden and from meshdesk's resource. */
function timeoutParts(file: string, golden: KumaJson, ours: KumaJson, isListener: boolean): ComparedPart[] {
  if (!isListener) {
    const common = (cluster: KumaJson) =>
      (cluster.typedExtensionProtocolOptions as Record<string, KumaJson> | undefined)?.[HTTP_PROTOCOL_OPTIONS]?.commonHttpProtocolOptions;
    return [
      { name: `${file}: connectTimeout`, kuma: golden.connectTimeout, meshdesk: ours.connectTimeout },
      { name: `${file}: commonHttpProtocolOptions`, kuma: common(golden), meshdesk: common(ours) },
    ];
  }
  const goldenTcp = tcpProxyOf(golden);
  if (Object.keys(goldenTcp).length > 0) {
    return [{ name: `${file}: tcp_proxy idleTimeout`, kuma: pick(goldenTcp, ['idleTimeout']), meshdesk: pick(tcpProxyOf(ours), ['idleTimeout']) }];
  }
  const [goldenHcm, ourHcm] = [httpConnectionManagerOf(golden), httpConnectionManagerOf(ours)];
  const hcmKeys = ['requestHeadersTimeout', 'commonHttpProtocolOptions'];
  const ourRoutes = routesOf(ourHcm.routeConfig as KumaJson);
  return [
    { name: `${file}: hcm timeouts`, kuma: pick(goldenHcm, hcmKeys), meshdesk: pick(ourHcm, hcmKeys) },
    ...routesOf(goldenHcm.routeConfig as KumaJson).map((route, index) => ({
      name: `${file}: routes[${index}] timeouts`,
      kuma: pick(route.route as KumaJson, ['timeout', 'idleTimeout']),
      meshdesk: pick(ourRoutes[index]?.route as KumaJson, ['timeout', 'idleTimeout']),
    })),
  ];
}

describe('MeshTimeout on Envoy, against Kuma v2.14.3 golden cases', () => {
  for (const policyCase of policyCases('meshtimeout')) {
    it(`${policyCase.id} writes the golden's timeouts`, () => {
      const { resources } = applyEnvoyToCase(meshTimeoutPlugin, policyCase, addSplitClusters(policyCase));
      const parts = policyCase.json.goldens.flatMap(({ file, resource }) => {
        const golden = policyCase.goldens.get(file)!;
        const isListener = resource.startsWith('Listener');
        const ours = kumaJsonOf(resources, isListener ? LISTENER_TYPE_URL : CLUSTER_TYPE_URL, String(golden.name));
        return timeoutParts(file, golden, ours, isListener);
      });
      expect(parts.length).toBeGreaterThan(0);
      expectPartsMatch(policyCase, parts);
    });
  }

  it('attributes the fields a rule set to its policy item, and not the defaults it filled in', () => {
    const policyCase = policyCases('meshtimeout').find(({ id }) => id === 'meshtimeout/tcp-outbound-route')!;
    const { resources } = applyEnvoyToCase(meshTimeoutPlugin, policyCase);
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
