import { describe, expect, it } from 'vitest';
import { casePolicyResources, policyCases } from '../../../../test/kuma/support/policy-cases.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { confValidationCases, expectMatchesGolden, runEnvoyPlugin } from '../../../../test/kuma/support/policy-plugin-run.js';
import { toKumaJson, type KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import type { DataplaneResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { generateProxyResources } from '../../xds/generate/profile.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import { EnvoyResources } from '../core/envoy-resources.js';
import { bindProxyValues } from '../core/proxy-bound.js';
import { emptyProxyRules } from '../core/rules.js';
import { ViolationList } from '../../resources/validation-error.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PolicyResource } from '../core/policy.js';
import { callerHeaderMatchers, callerTags, subsetMatchesCaller } from './caller-tags.js';
import { ABORT_STATUS_OUT_OF_ENVOY_RANGE, fractionalPercent } from './fault.js';
import { meshFaultInjectionPlugin } from './plugin.js';

const cases = new Map(policyCases('meshfaultinjection').map((policyCase) => [policyCase.id.split('/')[1]!, policyCase]));

/** The HTTP filters of a listener's first filter chain's HttpConnectionManager, in Kuma's JSON form. */
function httpFilters(listener: KumaJson | undefined): KumaJson[] {
  const chains = (listener?.filterChains ?? []) as { filters: { typedConfig: { httpFilters?: KumaJson[] } }[] }[];
  return chains.flatMap((chain) => chain.filters.flatMap((filter) => filter.typedConfig.httpFilters ?? []));
}

/** The filters a golden has beyond the router, which is all a Kuma test's base listener holds. */
function goldenFaultFilters(golden: KumaJson): KumaJson[] {
  return httpFilters(golden).filter((filter) => filter.name !== 'envoy.filters.http.router');
}

describe.skipIf(!kumaCasesPresent())('MeshFaultInjection on Envoy, against Kuma v2.14.3 goldens', () => {
  it('from-two-inbounds: one fault filter per legacy from rule, before the router, narrowed by x-kuma-tags; the TCP inbound untouched', () => {
    const policyCase = cases.get('from-two-inbounds')!;
    const run = runEnvoyPlugin(meshFaultInjectionPlugin, policyCase);
    const http = 'inbound:127.0.0.1:17777';
    const added = httpFilters(run.after(LISTENER_TYPE_URL, http)).slice(0, -1);
    expectMatchesGolden(policyCase.id, http, added, goldenFaultFilters(policyCase.goldens.get('basic_listener_1.golden.yaml')!));
    // The abort Envoy would refuse (status 111) is reported, not written (rulesAsTested names each rule's origin by its index).
    expect(run.unapplied).toEqual([
      { policy: { type: 'MeshFaultInjection', name: 'mfi-backend' }, field: 'spec.from[1].default.http[0].abort', reason: ABORT_STATUS_OUT_OF_ENVOY_RANGE },
    ]);
    // Everything else of the listener is the base's.
    expect(httpFilters(run.after(LISTENER_TYPE_URL, http)).slice(-1)).toEqual(httpFilters(run.before(LISTENER_TYPE_URL, http)));
    expect(run.after(LISTENER_TYPE_URL, 'inbound:127.0.0.1:17778')).toEqual(run.before(LISTENER_TYPE_URL, 'inbound:127.0.0.1:17778'));
    // Each filter is attributed to the policy items merged into its rule.
    expect(run.resources.attributions().map(({ path, origins }) => [path, origins.map(({ name, item }) => `${name} ${item}`)])).toEqual([
      ['filter_chains[0].filters[0].typed_config.http_filters[0]', ['mfi-backend spec.from[0]']],
      ['filter_chains[0].filters[0].typed_config.http_filters[1]', ['mfi-backend spec.from[1]']],
    ]);
  });

  it('rules-spiffeid-two-inbounds: each fault its own filter named by the policy KRI, skipped unless the URI SAN matches', () => {
    const policyCase = cases.get('rules-spiffeid-two-inbounds')!;
    // The case's policies carry the zone and namespace labels the KRI is made of.
    const policies = casePolicyResources(policyCase);
    const run = runEnvoyPlugin(meshFaultInjectionPlugin, policyCase, { context: (context) => buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies }) });
    const added = httpFilters(run.after(LISTENER_TYPE_URL, 'inbound:127.0.0.1:17777')).slice(0, -1);
    expectMatchesGolden(policyCase.id, 'inbound:127.0.0.1:17777', added, goldenFaultFilters(policyCase.goldens.get('basic_listener_1_rules.golden.yaml')!));
    expect(run.after(LISTENER_TYPE_URL, 'inbound:127.0.0.1:17778')).toEqual(run.before(LISTENER_TYPE_URL, 'inbound:127.0.0.1:17778'));
  });

  it('computes fractional percentages in float64, as Kuma does', () => {
    expect(fractionalPercent(11)).toEqual({ numerator: 11, denominator: 'HUNDRED' });
    expect(fractionalPercent('62.9')).toEqual({ numerator: 6290, denominator: 'TEN_THOUSAND' });
    expect(fractionalPercent('33.3')).toEqual({ numerator: 333000, denominator: 'MILLION' });
  });
});

describe.skipIf(!kumaCasesPresent())("MeshFaultInjection's conf validation, against Kuma's validator cases", () => {
  // Every case but those where a shared check refuses a whole list; compared on the violations in the confs.
  const confCases = confValidationCases('meshfaultinjection', (field) => /\.default\./.test(field));
  it.each(confCases.map((each) => [each.name, each] as const))('%s', (_name, validationCase) => {
    const violations = new ViolationList();
    meshFaultInjectionPlugin.validate((validationCase.universalResource as { spec: never }).spec, violations);
    expect(violations.violations).toEqual(expect.arrayContaining(validationCase.own));
    expect(violations.violations).toHaveLength(validationCase.own.length);
  });
});

describe('who calls, by x-kuma-tags', () => {
  it("writes Kuma's regex: keys sorted, dots of values escaped, `*` for any value", () => {
    expect(
      callerHeaderMatchers([
        { key: 'version', value: 'v1.2' },
        { key: 'kuma.io/service', value: '*' },
      ]),
    ).toEqual([{ name: 'x-kuma-tags', string_match: { safe_regex: { regex: '.*&kuma.io/service=.*&version=[^&]*v1\\.2[,&].*' } } }]);
  });

  it('lets a caller through as those matchers do: every positive tag, and not all of the negated ones', () => {
    const caller = callerTags({ networking: { address: '127.0.0.1', inbound: [{ port: 1, tags: { 'kuma.io/service': 'web', version: 'v1' } }, { port: 2, tags: { 'kuma.io/service': 'admin' } }] } });
    expect(subsetMatchesCaller([{ key: 'kuma.io/service', value: 'admin' }], caller)).toBe(true);
    expect(subsetMatchesCaller([{ key: 'kuma.io/service', value: 'web', not: true }], caller)).toBe(false);
    expect(subsetMatchesCaller([{ key: 'kuma.io/service', value: 'web', not: true }, { key: 'version', value: 'v2', not: true }], caller)).toBe(true);
    expect(subsetMatchesCaller([], caller)).toBe(true);
  });

  it("reads a tag value as Kuma's regex does: a suffix of one of the caller's values, dots literal", () => {
    const caller = callerTags({ networking: { address: '127.0.0.1', inbound: [{ port: 1, tags: { 'kuma.io/service': 'web', version: 'release-v1.2' } }, { port: 2, tags: { 'kuma.io/service': 'web', version: 'v3' } }] } });
    expect(subsetMatchesCaller([{ key: 'version', value: 'v1.2' }], caller)).toBe(true);
    expect(subsetMatchesCaller([{ key: 'version', value: 'v3' }], caller)).toBe(true);
    expect(subsetMatchesCaller([{ key: 'version', value: 'v1x2' }], caller)).toBe(false);
    expect(subsetMatchesCaller([{ key: 'version', value: 'release' }], caller)).toBe(false);
    expect(subsetMatchesCaller([{ key: 'kuma.io/service', value: 'eb' }, { key: 'version', value: 'v1.2', not: true }], caller)).toBe(false);
  });
});

describe('x-kuma-tags on the callers', () => {
  const TIME = '2026-01-01T00:00:00.000Z';
  const meta = (mesh: string, name: string) => ({ mesh, name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} });
  const web: DataplaneResource = {
    type: 'Dataplane',
    meta: meta('default', 'web-1'),
    spec: {
      networking: {
        address: '127.0.0.1',
        inbound: [{ port: 18080, tags: { 'kuma.io/service': 'web', version: 'v1', 'kuma.io/protocol': 'http' } }],
        outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }],
      },
    },
  };
  const echo: DataplaneResource = {
    type: 'Dataplane',
    meta: meta('default', 'echo-1'),
    spec: { networking: { address: '127.0.0.1', inbound: [{ port: 18081, tags: { 'kuma.io/service': 'echo', 'kuma.io/protocol': 'http' } }] } },
  };
  const policy: PolicyResource = {
    type: 'MeshFaultInjection',
    meta: meta('default', 'echo-faults'),
    spec: { targetRef: { kind: 'MeshService', name: 'echo' }, from: [{ targetRef: { kind: 'MeshService', name: 'web' }, default: { http: [] } }] },
  };

  function outboundRouteConfig(policies: PolicyResource[]): { headers: unknown; attributions: string[] } {
    const context = buildMeshContext({ type: 'Mesh', meta: meta('', 'default'), spec: {} }, [web, echo], { policies });
    const proxy: Proxy = { id: 'default.web-1', dataplane: web, kind: 'envoy' };
    const resources = new EnvoyResources(generateProxyResources(context, proxy), context);
    meshFaultInjectionPlugin.applyEnvoy({ proxy, context, rules: emptyProxyRules(), resources, rulesOf: () => emptyProxyRules(), unapplied: () => {} });
    // As applyPolicyPlugins does after the last plugin: the proxy's tags in place of their marker.
    bindProxyValues(resources, proxy);
    const listener = toKumaJson(LISTENER_TYPE_URL, resources.get(LISTENER_TYPE_URL, 'outbound:127.0.0.1:10001')!);
    return { headers: (hcmOf(listener).routeConfig as KumaJson).requestHeadersToAdd, attributions: resources.attributions().map(({ path }) => path) };
  }

  function hcmOf(listener: KumaJson): KumaJson {
    return ((listener.filterChains as { filters: { typedConfig: KumaJson }[] }[])[0]!.filters[0]!.typedConfig);
  }

  it("while the mesh has a MeshFaultInjection, a sidecar's outbound routes send its tags, as Kuma's", () => {
    const { headers, attributions } = outboundRouteConfig([policy]);
    expect(headers).toEqual([{ header: { key: 'x-kuma-tags', value: '&kuma.io/protocol=http&&kuma.io/service=web&&version=v1&' } }]);
    expect(attributions).toEqual(['filter_chains[0].filters[0].typed_config.route_config.request_headers_to_add[0]']);
  });

  it('without one they do not', () => {
    expect(outboundRouteConfig([]).headers).toBeUndefined();
  });
});
