import { toKumaJson, type KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import { CALLER_RULE_NEEDS_MTLS, SNI_CALLER_RULE_NOT_ENCODABLE, SNI_RULES_ON_ZONE_PROXIES } from '../core/caller-routes.js';
import type { UnappliedField } from '../core/plugin.js';
import { emptyProxyRules, type InboundRule } from '../core/rules.js';
import { withBuiltinMtls } from '../core/testing/mesh-mtls.js';
import { describe, expect, it } from 'vitest';
import { caseBaseResources, policyCases, policyValidationCases, rulesAsTested, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { explainDifferences, goldenDifferences, knownPolicyDifferences } from '../../../../test/kuma/support/policy-goldens.js';
import { ViolationList } from '../../resources/validation-error.js';
import { HTTP_PROTOCOL_OPTIONS } from '../../xds/generate/extension-types.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PolicySpec } from '../core/policy.js';
import { checkPolicySpec } from '../core/validate-policy.js';
import type { MeshTimeoutPolicyConf } from './api.js';
import { NOT_PER_CALLER } from './envoy.js';
import { meshTimeoutDescriptor } from './descriptor.js';
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
  meshTimeoutPlugin.applyEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: () => {} });
  return resources;
}

describe.skipIf(!kumaCasesPresent())('MeshTimeout on Envoy, against Kuma v2.14.3 golden cases', () => {
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

describe.skipIf(!kumaCasesPresent())('MeshTimeout validation, against Kuma v2.14.3 validator cases', () => {
  // Every case: the violations in `default` confs are this plugin's; the others (targetRefs, to/from/rules, matches) are the shared checks'.
  for (const { name, universalResource, expected } of policyValidationCases('meshtimeout')) {
    it(name, () => {
      const violations = new ViolationList();
      meshTimeoutPlugin.validate(universalResource.spec as PolicySpec<MeshTimeoutPolicyConf>, violations);
      expect(violations.violations).toEqual(expected === 'valid' ? [] : expected.filter(({ field }) => field.includes('.default')));
    });
  }

  it('names a timeout of another JSON type, and reads a null section as absent, before its validator reads them', () => {
    const violations = new ViolationList();
    const callerRule = { matches: [{ spiffeID: { type: 'Exact', value: 'spiffe://default/client' } }], default: { http: null } };
    checkPolicySpec(meshTimeoutDescriptor, { rules: [callerRule, { default: { connectionTimeout: 5, http: { requestTimeout: ['1s'] } } }] }, violations);
    expect(violations.violations).toEqual([
      { field: 'spec.rules[1].default.connectionTimeout', message: 'in body must be of type string: "integer"' },
      { field: 'spec.rules[1].default.http.requestTimeout', message: 'in body must be of type string: "array"' },
    ]);
    const nullSection = new ViolationList();
    checkPolicySpec(meshTimeoutDescriptor, { rules: [callerRule] }, nullSection);
    expect(nullSection.violations).toEqual([{ field: 'spec.rules[0].default', message: 'at least one timeout should be configured' }]);
  });
});

describe.skipIf(!kumaCasesPresent())('MeshTimeout inbound rules matching callers', () => {
  const origin = (item: string) => [{ type: 'MeshTimeout' as const, mesh: 'default', name: 'timeout-callers', item }];
  const inboundRules: InboundRule<MeshTimeoutPolicyConf>[] = [
    { match: { spiffeID: { type: 'Exact', value: 'spiffe://default/ns/web' } }, conf: { http: { streamIdleTimeout: '20s' } }, origins: origin('spec.rules[2]') },
    { match: { spiffeID: { type: 'Prefix', value: 'spiffe://default/ns/' } }, conf: { connectionTimeout: '1s', http: { requestTimeout: '3s' } }, origins: origin('spec.rules[1]') },
    { match: { spiffeID: { type: 'Exact', value: 'spiffe://default/ns/api' }, sni: { type: 'Exact', value: 'backend.mesh' } }, conf: { http: { requestTimeout: '4s' } }, origins: origin('spec.rules[3]') },
    { match: { sni: { type: 'Exact', value: 'backend.mesh' } }, conf: { idleTimeout: '5s' }, origins: origin('spec.rules[4]') },
    { conf: { http: { requestTimeout: '10s' } }, origins: origin('spec.rules[0]') },
  ];
  const HTTP = 'inbound:127.0.0.1:80';
  const run = (mtls: boolean) => {
    const base = caseBaseResources(policyCases('meshtimeout').find(({ id }) => id === 'meshtimeout/basic-inbound-route')!);
    const unapplied: UnappliedField[] = [];
    meshTimeoutPlugin.applyEnvoy({
      ...base,
      context: mtls ? withBuiltinMtls(base.context) : base.context,
      rules: { ...emptyProxyRules(), inbound: new Map([['127.0.0.1:80', inboundRules]]) },
      rulesOf: () => emptyProxyRules(),
      unapplied: (field) => unapplied.push(field),
    });
    const listener = toKumaJson(LISTENER_TYPE_URL, base.resources.get(LISTENER_TYPE_URL, HTTP)!);
    const routes = (listener.filterChains as { filters: { typedConfig: { routeConfig: { virtualHosts: { routes: KumaJson[] }[] } } }[] }[])[0]!.filters[0]!.typedConfig.routeConfig.virtualHosts[0]!.routes;
    const timeouts = routes.map((route) => {
      const { timeout, idleTimeout } = route.route as KumaJson;
      const headers = (route.match as KumaJson).headers as { stringMatch: { safeRegex: { regex: string } } }[] | undefined;
      return [headers?.[0]?.stringMatch.safeRegex.regex, timeout, idleTimeout];
    });
    return { unapplied, timeouts, attributions: base.resources.attributions() };
  };

  it('gives, in an mTLS mesh, the callers a SPIFFE ID rule matches their copy of each route with its route timeouts, most specific first, as Kuma', () => {
    const { unapplied, timeouts, attributions } = run(true);
    expect(timeouts).toEqual([
      // The Exact caller: the Prefix rule's request timeout, its own stream idle timeout.
      ['(.*;)?URI=spiffe://default/ns/web(;.*)?', '3s', '20s'],
      ['(.*;)?URI=spiffe://default/ns/[^;,]*(;.*)?', '3s', '1800s'],
      [undefined, '10s', '1800s'],
    ]);
    expect(unapplied).toEqual([
      { policy: { type: 'MeshTimeout', name: 'timeout-callers' }, field: 'spec.rules[1].default.connectionTimeout', reason: NOT_PER_CALLER },
      { policy: { type: 'MeshTimeout', name: 'timeout-callers' }, field: 'spec.rules[3].default.http.requestTimeout', reason: SNI_CALLER_RULE_NOT_ENCODABLE },
      { policy: { type: 'MeshTimeout', name: 'timeout-callers' }, field: 'spec.rules[4].default.idleTimeout', reason: SNI_RULES_ON_ZONE_PROXIES },
    ]);
    // Fields move with their routes: the catch-all's request timeout is on the original route, now last.
    const routePath = 'filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes';
    expect(attributions.filter(({ path }) => path.startsWith(routePath)).map(({ path, origins }) => `${path.slice(routePath.length)} ${origins.map((each) => each.item).join(',')}`)).toEqual([
      '[2].route.timeout spec.rules[0]',
      '[0].route.timeout spec.rules[1],spec.rules[2]',
      '[0].route.idle_timeout spec.rules[1],spec.rules[2]',
      '[1].route.timeout spec.rules[1]',
    ]);
  });

  it('without mTLS, leaves the routes to the catch-all and reports the rules, since no caller has a SPIFFE ID', () => {
    const { unapplied, timeouts } = run(false);
    expect(timeouts).toEqual([[undefined, '10s', '1800s']]);
    expect(unapplied.filter(({ reason }) => reason === CALLER_RULE_NEEDS_MTLS).map(({ field }) => field)).toEqual([
      'spec.rules[2].default.http.streamIdleTimeout',
      'spec.rules[1].default.http.requestTimeout',
    ]);
  });
});
