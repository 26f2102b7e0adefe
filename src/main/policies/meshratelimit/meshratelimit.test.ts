import { describe, expect, it } from 'vitest';
import { caseBaseResources, policyCases, rulesAsTested, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { confValidationCases, expectMatchesGolden, runEnvoyPlugin } from '../../../../test/kuma/support/policy-plugin-run.js';
import { toKumaJson, type KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import { ViolationList } from '../../resources/validation-error.js';
import { LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { UnappliedField } from '../core/plugin.js';
import { emptyProxyRules } from '../core/rules.js';
import { CALLER_RULE_NEEDS_MTLS } from '../core/caller-routes.js';
import { withBuiltinMtls } from '../core/testing/mesh-mtls.js';
import { meshRateLimitPlugin } from './plugin.js';
import { HTTP_LOCAL_RATE_LIMIT_FILTER, STATUS_NOT_IN_ENVOY, routeRateLimit } from './rate-limit.js';

/**
 * The cases' Dataplane tags no protocol, but Kuma's test builds the 17777 listener as HTTP (its
 * base resources are synthetic, see case.json `baseResources`): tag that inbound http so that
 * meshdesk builds the same kind of listener.
 */
function withHttpInbound(policyCase: PolicyCase): PolicyCase {
  const proxy = structuredClone(policyCase.json.proxy) as { networking: { inbound: { port: number; tags: Record<string, string> }[] } };
  for (const inbound of proxy.networking.inbound) if (inbound.port === 17777) inbound.tags['kuma.io/protocol'] = 'http';
  return { ...policyCase, json: { ...policyCase.json, proxy } };
}

const cases = new Map(policyCases('meshratelimit').map((policyCase) => [policyCase.id.split('/')[1]!, withHttpInbound(policyCase)]));
const HTTP = 'inbound:127.0.0.1:17777';
const TCP = 'inbound:127.0.0.1:17778';

type Chain = { filters: { name: string; typedConfig: { httpFilters?: KumaJson[]; routeConfig?: { virtualHosts: { routes: KumaJson[] }[] } } }[] };
const chain = (listener: KumaJson | undefined) => ((listener?.filterChains ?? []) as Chain[])[0]!;
const hcm = (listener: KumaJson | undefined) => chain(listener).filters.find((filter) => filter.name === 'envoy.filters.network.http_connection_manager')!.typedConfig;

/** What MeshRateLimit writes on a listener: the network filters before the last one, the HTTP filters but the router, and per route its caller match (Kuma's filter state, meshdesk's header) and per-filter configs. */
function rateLimitParts(listener: KumaJson | undefined): KumaJson {
  const filters = chain(listener).filters;
  const http = filters.some((filter) => filter.name === 'envoy.filters.network.http_connection_manager') ? hcm(listener) : undefined;
  return {
    networkFilters: filters.slice(0, -1),
    ...(http && {
      httpFilters: (http.httpFilters ?? []).filter((filter) => filter.name !== 'envoy.filters.http.router'),
      routes: http.routeConfig!.virtualHosts.flatMap((host) =>
        host.routes.map((route) => ({
          filterState: (route.match as KumaJson).filterState,
          headers: (route.match as KumaJson).headers,
          typedPerFilterConfig: route.typedPerFilterConfig,
        })),
      ),
    }),
  };
}

describe.skipIf(!kumaCasesPresent())('MeshRateLimit on Envoy, against Kuma v2.14.3 goldens', () => {
  it('http-and-tcp-inbounds: the HTTP limit on the route with a shell filter, the TCP limit as the first network filter', () => {
    const policyCase = cases.get('http-and-tcp-inbounds')!;
    const run = runEnvoyPlugin(meshRateLimitPlugin, policyCase);
    expectMatchesGolden(policyCase.id, HTTP, rateLimitParts(run.after(LISTENER_TYPE_URL, HTTP)), rateLimitParts(policyCase.goldens.get('basic_listener_1.golden.yaml')!));
    expectMatchesGolden(policyCase.id, TCP, rateLimitParts(run.after(LISTENER_TYPE_URL, TCP)), rateLimitParts(policyCase.goldens.get('basic_listener_2.golden.yaml')!));
    // Status 444, which Envoy's StatusCode enum has not, is reported rather than written.
    expect(run.unapplied).toEqual([
      { policy: { type: 'MeshRateLimit', name: 'mrl-backend' }, field: 'spec.rules[0].default.local.http.onRateLimit.status', reason: STATUS_NOT_IN_ENVOY },
    ]);
    expect(run.resources.attributions().map(({ resource, path }) => `${resource} ${path}`)).toEqual([
      `${HTTP} filter_chains[0].filters[0].typed_config.http_filters[0]`,
      `${HTTP} filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[0].typed_per_filter_config["envoy.filters.http.local_ratelimit"]`,
      `${TCP} filter_chains[0].filters[0]`,
    ]);
  });

  it('http-disabled: nothing at all', () => {
    const run = runEnvoyPlugin(meshRateLimitPlugin, cases.get('http-disabled')!);
    expect(run.after(LISTENER_TYPE_URL, HTTP)).toEqual(run.before(LISTENER_TYPE_URL, HTTP));
    expect(run.resources.attributions()).toEqual([]);
  });

  it('spiffeid-and-catch-all, mTLS on: the callers the SPIFFE ID rule matches get their copy of the route first, with their limit, as Kuma', () => {
    const policyCase = cases.get('spiffeid-and-catch-all')!;
    const run = runEnvoyPlugin(meshRateLimitPlugin, policyCase, { context: withBuiltinMtls });
    const golden = rateLimitParts(policyCase.goldens.get('inbound_matches_spiffeid_and_catchall.listener.golden.yaml')!);
    const ours = rateLimitParts(run.after(LISTENER_TYPE_URL, HTTP));
    // Kuma's copy matches filter state; meshdesk's the caller's certificate in x-forwarded-client-cert (listed).
    expectMatchesGolden(policyCase.id, HTTP, ours, golden);
    expect((ours.routes as KumaJson[])[0]!.headers).toEqual([
      { name: 'x-forwarded-client-cert', stringMatch: { safeRegex: { regex: '(.*;)?URI=spiffe://default/ns/clients/[^;,]*(;.*)?' } } },
    ]);
    // The header is the one the connection manager writes from the connection, never the caller's.
    expect(hcm(run.after(LISTENER_TYPE_URL, HTTP))).toMatchObject({ forwardClientCertDetails: 'SANITIZE_SET', setCurrentClientCertDetails: { uri: true } });
    expect(run.unapplied).toEqual([]);
    expect(run.resources.attributions().map(({ resource, path, origins }) => `${resource} ${path} ${origins.map((origin) => origin.item).join(',')}`)).toEqual([
      `${HTTP} filter_chains[0].filters[0].typed_config.http_filters[0] spec.rules[0]`,
      `${HTTP} filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[0] spec.rules[0],spec.rules[1]`,
      `${HTTP} filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[1].typed_per_filter_config["envoy.filters.http.local_ratelimit"] spec.rules[0]`,
    ]);
  });

  it('spiffeid-and-catch-all, mTLS off: the catch-all limit only; the SPIFFE ID rule reported, since no caller has an identity', () => {
    const policyCase = cases.get('spiffeid-and-catch-all')!;
    const run = runEnvoyPlugin(meshRateLimitPlugin, policyCase);
    const golden = rateLimitParts(policyCase.goldens.get('inbound_matches_spiffeid_and_catchall.listener.golden.yaml')!);
    const ours = rateLimitParts(run.after(LISTENER_TYPE_URL, HTTP));
    // The route Kuma leaves for every other caller is ours, limit and all.
    expect(ours.routes).toEqual((golden.routes as unknown[]).slice(-1));
    expect(ours.httpFilters).toEqual(golden.httpFilters);
    expect(run.unapplied).toEqual([
      { policy: { type: 'MeshRateLimit', name: 'mrl-clients' }, field: 'spec.rules[1].default.local.http', reason: CALLER_RULE_NEEDS_MTLS },
    ]);
  });
});

describe.skipIf(!kumaCasesPresent())("MeshRateLimit's conf validation, against Kuma's validator cases", () => {
  // Every case but those where a shared check refuses a whole list; compared on the violations in the confs.
  const confCases = confValidationCases('meshratelimit', (field) => /\.default\./.test(field));
  it.each(confCases.map((each) => [each.name, each] as const))('%s', (_name, validationCase) => {
    const violations = new ViolationList();
    meshRateLimitPlugin.validate((validationCase.universalResource as { spec: never }).spec, violations);
    expect(violations.violations).toEqual(validationCase.own);
    expect(violations.violations).toHaveLength(validationCase.own.length);
  });
});

describe.skipIf(!kumaCasesPresent())('MeshRateLimit for proxyless gRPC', () => {
  it('reports every limit on the proxy, since gRPC rate-limits nothing, and changes nothing', () => {
    const policyCase = cases.get('http-and-tcp-inbounds')!;
    const base = caseBaseResources(policyCase, 'grpc');
    const before = base.resources.toResources();
    const unapplied: UnappliedField[] = [];
    meshRateLimitPlugin.applyGrpc({
      ...base,
      rules: rulesAsTested(policyCase),
      rulesOf: () => emptyProxyRules(),
      unapplied: (field) => unapplied.push(field),
    });
    expect(base.resources.toResources()).toEqual(before);
    // rulesAsTested attributes every rule to the case's first policy; per inbound: 17777 HTTP, 17778 HTTP and TCP.
    expect(unapplied.map(({ field }) => field)).toEqual([
      'spec.rules[0].default.local.http',
      'spec.rules[0].default.local.http',
      'spec.rules[0].default.local.tcp',
    ]);
  });
});

describe("a rate-limited request's status", () => {
  it("is Envoy's StatusCode, which prints 429 by its name (TooManyRequests)", () => {
    const limit = routeRateLimit({ requestRate: { num: 5, interval: '1s' }, onRateLimit: { status: 429 } })!;
    const route = toKumaJson(ROUTE_TYPE_URL, { name: 'r', virtual_hosts: [{ name: 'v', domains: ['*'], typed_per_filter_config: { [HTTP_LOCAL_RATE_LIMIT_FILTER]: limit } }] });
    const perFilter = (route.virtualHosts as { typedPerFilterConfig: Record<string, KumaJson> }[])[0]!.typedPerFilterConfig[HTTP_LOCAL_RATE_LIMIT_FILTER]!;
    expect(perFilter.status).toEqual({ code: 'TooManyRequests' });
    expect(perFilter.tokenBucket).toEqual({ maxTokens: 5, tokensPerFill: 5, fillInterval: '1s' });
  });
});
