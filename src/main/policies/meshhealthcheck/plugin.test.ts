import { emptyProxyRules } from '../core/rules.js';
import { describe, expect, it } from 'vitest';
import { caseBaseResources, policyCases, policyValidationCases, rulesAsTested } from '../../../../test/kuma/support/policy-cases.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { explainDifferences, goldenDifferences, knownPolicyDifferences } from '../../../../test/kuma/support/policy-goldens.js';
import { ViolationList } from '../../resources/validation-error.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { UnappliedField } from '../core/plugin.js';
import { bindProxyValues } from '../core/proxy-bound.js';
import type { PolicySpec } from '../core/policy.js';
import { checkPolicySpec } from '../core/validate-policy.js';
import type { MeshHealthCheckConf } from './api.js';
import { configureCluster } from './envoy.js';
import { meshHealthCheckDescriptor } from './descriptor.js';
import { meshHealthCheckPlugin } from './plugin.js';

// Kuma v2.14.3's MeshHealthCheck plugin and validator cases (../shared/kuma-cases/policies/meshhealthcheck).

/** The parts of a cluster the plugin writes: every golden's `fromPolicy`. */
const WRITTEN = ['healthChecks', 'commonLbConfig'];

describe.skipIf(!kumaCasesPresent())('MeshHealthCheck on Envoy: Kuma golden cases', () => {
  const cases = policyCases('meshhealthcheck');
  const used = new Set<unknown>();

  it.each(cases.map((policyCase) => [policyCase.id, policyCase] as const))('%s', (id, policyCase) => {
    const { proxy, context, resources } = caseBaseResources(policyCase);
    meshHealthCheckPlugin.applyEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: () => {} });
    // As applyPolicyPlugins does after the last plugin: the proxy's tags in place of their marker.
    bindProxyValues(resources, proxy);

    for (const { file } of policyCase.json.goldens) {
      const { unexplained, used: explaining } = explainDifferences(id, goldenDifferences(policyCase, file, CLUSTER_TYPE_URL, resources, WRITTEN));
      explaining.forEach((entry) => used.add(entry));
      expect(unexplained, file).toEqual([]);
    }
    // Every field set is attributed to the policy.
    const attributed = resources.attributions().map(({ resource, path }) => `${resource} ${path}`);
    for (const { file } of policyCase.json.goldens) {
      const name = String(policyCase.goldens.get(file)!['name']);
      expect(attributed).toContain(`${name} health_checks[0]`);
    }
    expect(resources.attributions().every(({ origins }) => origins[0]?.name === policyCase.json.policies[0]!.name)).toBe(true);
  });

  it('lists no known difference that no longer explains one', () => {
    const stale = cases.flatMap(({ id }) => knownPolicyDifferences(id)).filter((entry) => !used.has(entry));
    expect(stale).toEqual([]);
  });

  it('leaves the clusters of services no rule reaches, and of inbounds, alone', () => {
    const policyCase = cases.find(({ id }) => id === 'meshhealthcheck/tcp-health-check')!;
    const { proxy, context, resources } = caseBaseResources(policyCase);
    const before = new Map(resources.list(CLUSTER_TYPE_URL).map(({ name, resource }) => [name, resource]));
    const rules = rulesAsTested<MeshHealthCheckConf>(policyCase);
    const onlyEchoTcp = { ...rules, to: rules.to.map((rule) => ({ ...rule, subset: [{ key: 'kuma.io/service', value: 'echo-tcp' }] })) };
    meshHealthCheckPlugin.applyEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, rules: onlyEchoTcp, resources, unapplied: () => {} });
    const changed = resources.list(CLUSTER_TYPE_URL).filter(({ name, resource }) => before.get(name) !== resource).map(({ name }) => name);
    expect(changed).toEqual(['echo-tcp']);
  });
});

describe.skipIf(!kumaCasesPresent())('MeshHealthCheck on proxyless gRPC', () => {
  it('changes nothing and reports the conf as unapplied, once per policy item', () => {
    const policyCase = policyCases('meshhealthcheck').find(({ id }) => id === 'meshhealthcheck/grpc-health-check')!;
    const { proxy, context, resources } = caseBaseResources(policyCase, 'grpc');
    const before = resources.toResources();
    const unapplied: UnappliedField[] = [];
    meshHealthCheckPlugin.applyGrpc({ rulesOf: () => emptyProxyRules(), proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: (field) => unapplied.push(field) });
    expect(resources.toResources()).toEqual(before);
    expect(unapplied).toEqual([
      { policy: { type: 'MeshHealthCheck', name: 'hc-grpc' }, field: 'spec.to[0].default', reason: expect.stringContaining('health checks') },
    ]);
  });
});

describe.skipIf(!kumaCasesPresent())('MeshHealthCheck validation: Kuma validator cases', () => {
  const ownFields = /^spec\.to\[\d+\]\.default/;
  const cases = policyValidationCases('meshhealthcheck').filter(({ expected }) => expected === 'valid' || expected.every(({ field }) => ownFields.test(field)));

  it('has the cases whose violations are all in the conf', () => {
    expect(cases.map(({ name }) => name)).toHaveLength(8);
  });

  it.each(cases.map((validationCase) => [validationCase.name, validationCase] as const))('%s', (_name, validationCase) => {
    const violations = new ViolationList();
    meshHealthCheckPlugin.validate(validationCase.universalResource['spec'] as PolicySpec<MeshHealthCheckConf>, violations);
    // Kuma's test compares the whole error in order.
    expect(violations.violations).toEqual(validationCase.expected === 'valid' ? [] : validationCase.expected);
  });

  it("names a field of another JSON type, as Kuma's schema check does, instead of storing what the configurer cannot read", () => {
    const violations = new ViolationList();
    const conf = { unhealthyThreshold: '3', tcp: { send: 5, receive: 'pong' }, http: { expectedStatuses: ['200'], requestHeadersToAdd: { set: [null] } } };
    checkPolicySpec(meshHealthCheckDescriptor, { to: [{ targetRef: { kind: 'Mesh' }, default: conf }] }, violations);
    expect(violations.violations).toEqual([
      { field: 'spec.to[0].default.unhealthyThreshold', message: 'in body must be of type integer: "string"' },
      { field: 'spec.to[0].default.tcp.send', message: 'in body must be of type string: "integer"' },
      { field: 'spec.to[0].default.tcp.receive', message: 'in body must be of type array: "string"' },
      { field: 'spec.to[0].default.http.expectedStatuses[0]', message: 'in body must be of type integer: "string"' },
      { field: 'spec.to[0].default.http.requestHeadersToAdd.set[0]', message: 'in body must be of type object: "null"' },
    ]);
  });

  it('names an empty TCP payload and an empty header name, which Envoy refuses', () => {
    const violations = new ViolationList();
    const conf = { tcp: { send: '', receive: ['pong', ''] }, http: { requestHeadersToAdd: { add: [{ name: '', value: 'v' }] } } };
    checkPolicySpec(meshHealthCheckDescriptor, { to: [{ targetRef: { kind: 'Mesh' }, default: conf }] }, violations);
    const empty = "must be servable: Envoy's HealthCheck.Payload.text must be at least 1 character(s) long (string.min_len), got 0";
    expect(violations.violations).toEqual([
      { field: 'spec.to[0].default.http.requestHeadersToAdd.add[0].name', message: 'in body should be at least 1 chars long' },
      { field: 'spec.to[0].default.tcp.send', message: empty },
      { field: 'spec.to[0].default.tcp.receive[1]', message: empty },
    ]);
  });
});

describe('MeshHealthCheck configurer: what the goldens leave out', () => {
  const tags = '&kuma.io/service=web&';

  it("falls back to TCP when the protocol's own check is disabled, and checks nothing without one", () => {
    const conf: MeshHealthCheckConf = { http: { disabled: true }, grpc: { disabled: true }, tcp: { send: 'ping' } };
    for (const protocol of ['http', 'http2', 'grpc'] as const) {
      expect(configureCluster({ name: 'c' }, conf, protocol, tags).cluster['health_checks'], protocol).toEqual([expect.objectContaining({ tcp_health_check: { send: { text: '70696e67' } } })]);
    }
    expect(configureCluster({ name: 'c' }, { http: { path: '/h' } }, 'tcp', tags).cluster).toEqual({ name: 'c' });
  });

  it('speaks HTTP/2 to http2 services, splits header values at commas and writes Kuma defaults', () => {
    const conf: MeshHealthCheckConf = { http: { requestHeadersToAdd: { set: [{ name: 'x-a', value: 'one,two' }] } } };
    const [check] = configureCluster({ name: 'c' }, conf, 'http2', tags).cluster['health_checks'] as Record<string, unknown>[];
    expect(check).toEqual({
      timeout: '15s',
      interval: '60s',
      unhealthy_threshold: 5,
      healthy_threshold: 1,
      http_health_check: {
        path: '/',
        codec_client_type: 'HTTP2',
        request_headers_to_add: [
          { header: { key: 'x-kuma-tags', value: '&kuma.io/service=web&' } },
          { header: { key: 'x-a', value: 'one' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
          { header: { key: 'x-a', value: 'two' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
        ],
      },
    });
  });

  it('leaves failTrafficOnPanic out beside locality-weighted balancing (MeshLoadBalancingStrategy runs first)', () => {
    const cluster = { name: 'c', common_lb_config: { locality_weighted_lb_config: {} } };
    expect(configureCluster(cluster, { failTrafficOnPanic: true, tcp: {} }, 'tcp', tags)).toMatchObject({ cluster: { common_lb_config: { locality_weighted_lb_config: {} } }, set: ['health_checks[0]'] });
  });
});
