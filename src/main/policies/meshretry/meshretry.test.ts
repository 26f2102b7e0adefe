import { emptyProxyRules } from '../core/rules.js';
import { describe, expect, it } from 'vitest';
import { caseBaseResources, policyCases, policyValidationCases, rulesAsTested, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { explainDifferences, goldenDifferences, knownPolicyDifferences } from '../../../../test/kuma/support/policy-goldens.js';
import { toKumaJson, type KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import { ViolationList } from '../../resources/validation-error.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PolicySpec } from '../core/policy.js';
import type { MeshRetryConf } from './api.js';
import { meshRetryPlugin } from './plugin.js';

// Kuma v2.14.3's MeshRetry plugin and validator cases (../shared/kuma-cases/policies/meshretry).

const FILTER = 'filterChains[0].filters[0].typedConfig';
/** The parts of an outbound listener MeshRetry writes: the route's whole retry policy, or the tcp_proxy's connect attempts. */
const WRITTEN = [`${FILTER}.routeConfig.virtualHosts[0].routes[0].route.retryPolicy`, `${FILTER}.maxConnectAttempts`];

function applied(policyCase: PolicyCase) {
  const { proxy, context, resources } = caseBaseResources(policyCase);
  meshRetryPlugin.applyEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: () => {} });
  return resources;
}

describe.skipIf(!kumaCasesPresent())('MeshRetry on Envoy, against Kuma v2.14.3 golden cases', () => {
  const cases = policyCases('meshretry');
  const used = new Set<unknown>();

  it.each(cases.map((policyCase) => [policyCase.id, policyCase] as const))("%s writes the golden's retry policy", (id, policyCase) => {
    const resources = applied(policyCase);
    for (const { file } of policyCase.json.goldens) {
      const { unexplained, used: explaining } = explainDifferences(id, goldenDifferences(policyCase, file, LISTENER_TYPE_URL, resources, WRITTEN));
      explaining.forEach((entry) => used.add(entry));
      expect(unexplained, file).toEqual([]);
    }
  });

  it('lists no known difference that no longer explains one', () => {
    expect(cases.flatMap(({ id }) => knownPolicyDifferences(id)).filter((entry) => !used.has(entry))).toEqual([]);
  });

  it('gives an http2 destination no retry policy, as Kuma builds one only for http and grpc', () => {
    const policyCase = policyCases('meshretry').find(({ id }) => id === 'meshretry/http-retry')!;
    const http2Case = {
      ...policyCase,
      json: {
        ...policyCase.json,
        endpoints: { ...policyCase.json.endpoints, 'http-service': [{ address: '192.168.0.1', port: 0, tags: { 'kuma.io/protocol': 'http2' } }] },
      },
    };
    const resources = applied(http2Case);
    const listener = toKumaJson(LISTENER_TYPE_URL, resources.get(LISTENER_TYPE_URL, 'outbound:127.0.0.1:10001')!);
    const filter = (listener.filterChains as { filters: { typedConfig: KumaJson }[] }[])[0]!.filters[0]!.typedConfig;
    const routes = (filter.routeConfig as { virtualHosts: { routes: KumaJson[] }[] }).virtualHosts[0]!.routes;
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.map((route) => (route.route as KumaJson).retryPolicy)).toEqual(routes.map(() => undefined));
    expect(resources.attributions()).toEqual([]);
  });
});

describe.skipIf(!kumaCasesPresent())('MeshRetry validation, against Kuma v2.14.3 validator cases', () => {
  // Every case: the violations in `default` confs are this plugin's; the others (targetRefs) are the shared checks'.
  for (const { name, universalResource, expected } of policyValidationCases('meshretry')) {
    it(name, () => {
      const violations = new ViolationList();
      meshRetryPlugin.validate(universalResource.spec as PolicySpec<MeshRetryConf>, violations);
      expect(violations.violations).toEqual(expected === 'valid' ? [] : expected.filter(({ field }) => field.includes('.default')));
    });
  }

  it('names a count or a duration of the wrong kind, which Kuma refuses when it decodes the policy', () => {
    const violations = new ViolationList();
    const conf = { grpc: { numRetries: 'three', perTryTimeout: 'soon', backOff: { baseInterval: 10 } } } as unknown as MeshRetryConf;
    meshRetryPlugin.validate({ targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: conf }] }, violations);
    expect(violations.violations).toEqual([
      { field: 'spec.to[0].default.conf.grpc.numRetries', message: 'must be a non-negative integer' },
      { field: 'spec.to[0].default.conf.grpc.perTryTimeout', message: 'time: invalid duration "soon"' },
      { field: 'spec.to[0].default.conf.grpc.backOff.baseInterval', message: 'time: invalid duration "10"' },
    ]);
  });

  it('names a list that is none and a header matcher without a name, which Envoy would refuse', () => {
    const violations = new ViolationList();
    const conf = { http: { retryOn: 'GatewayError', retriableRequestHeaders: [{ type: 'Exact', value: 'x' }] } } as unknown as MeshRetryConf;
    meshRetryPlugin.validate({ to: [{ targetRef: { kind: 'Mesh' }, default: conf }] }, violations);
    expect(violations.violations).toEqual([
      { field: 'spec.to[0].default.conf.http.retryOn', message: 'must be a list' },
      { field: 'spec.to[0].default.conf.http.retriableRequestHeaders[0].name', message: 'must be defined' },
    ]);
  });

  it('names an HTTP back-off with a maximum and no base, which Kuma writes as it is and Envoy refuses', () => {
    const violations = new ViolationList();
    const conf = { http: { backOff: { maxInterval: '4s' } }, grpc: { backOff: { maxInterval: '4s' } } } as unknown as MeshRetryConf;
    meshRetryPlugin.validate({ to: [{ targetRef: { kind: 'Mesh' }, default: conf }] }, violations);
    expect(violations.violations).toEqual([
      { field: 'spec.to[0].default.conf.http.backOff.baseInterval', message: "must be defined with maxInterval: Envoy's RetryPolicy.RetryBackOff.base_interval is required" },
    ]);
  });

  it('names an empty list of rate-limit reset headers, which Kuma takes and Envoy refuses', () => {
    const violations = new ViolationList();
    const conf = { grpc: { rateLimitedBackOff: { resetHeaders: [] } } } as unknown as MeshRetryConf;
    meshRetryPlugin.validate({ to: [{ targetRef: { kind: 'Mesh' }, default: conf }] }, violations);
    expect(violations.violations).toEqual([
      {
        field: 'spec.to[0].default.conf.grpc.rateLimitedBackOff.resetHeaders',
        message: "must have at least one item: Envoy's RetryPolicy.RateLimitedRetryBackOff.reset_headers must have at least 1 item(s) (repeated.min_items)",
      },
    ]);
  });

  it('names a Prefix header match without a value, which Kuma writes as an empty prefix and Envoy refuses', () => {
    const violations = new ViolationList();
    const conf = { http: { retriableResponseHeaders: [{ type: 'Prefix', name: 'x-retry' }] } } as unknown as MeshRetryConf;
    meshRetryPlugin.validate({ to: [{ targetRef: { kind: 'Mesh' }, default: conf }] }, violations);
    expect(violations.violations).toEqual([
      {
        field: 'spec.to[0].default.conf.http.retriableResponseHeaders[0].value',
        message: "must be servable: Envoy's StringMatcher.prefix must be at least 1 character(s) long (string.min_len), got 0",
      },
    ]);
  });
});
