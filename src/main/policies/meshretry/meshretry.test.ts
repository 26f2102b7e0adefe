import { describe, expect, it } from 'vitest';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { ViolationList } from '../../resources/validation-error.js';
import type { PolicySpec } from '../core/policy.js';
import { policyCases, policyValidationCases } from '../../../../test/kuma/support/policy-cases.js';
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
import type { MeshRetryConf } from './api.js';
import { meshRetryPlugin } from './plugin.js';

/** The parts of a golden outbound listener MeshRetry writes: each route's whole retryPolicy, or the tcp_proxy's connect attempts. */
function retryParts(file: string, golden: KumaJson, ours: KumaJson): ComparedPart[] {
  const goldenTcp = tcpProxyOf(golden);
  if (Object.keys(goldenTcp).length > 0) {
    return [{ name: `${file}: tcp_proxy maxConnectAttempts`, kuma: pick(goldenTcp, ['maxConnectAttempts']), meshdesk: pick(tcpProxyOf(ours), ['maxConnectAttempts']) }];
  }
  const ourRoutes = routesOf(httpConnectionManagerOf(ours).routeConfig as KumaJson);
  return routesOf(httpConnectionManagerOf(golden).routeConfig as KumaJson).map((route, index) => ({
    name: `${file}: routes[${index}].route.retryPolicy`,
    kuma: (route.route as KumaJson).retryPolicy,
    meshdesk: (ourRoutes[index]?.route as KumaJson | undefined)?.retryPolicy,
  }));
}

describe('MeshRetry on Envoy, against Kuma v2.14.3 golden cases', () => {
  for (const policyCase of policyCases('meshretry')) {
    it(`${policyCase.id} writes the golden's retry policy`, () => {
      const { resources } = applyEnvoyToCase(meshRetryPlugin, policyCase);
      const parts = policyCase.json.goldens.flatMap(({ file }) => {
        const golden = policyCase.goldens.get(file)!;
        return retryParts(file, golden, kumaJsonOf(resources, LISTENER_TYPE_URL, String(golden.name)));
      });
      expect(parts.length).toBeGreaterThan(0);
      expectPartsMatch(policyCase, parts);
    });
  }

  it('gives an http2 destination no retry policy, as Kuma builds one only for http and grpc', () => {
    const policyCase = policyCases('meshretry').find(({ id }) => id === 'meshretry/http-retry')!;
    const http2Case = {
      ...policyCase,
      json: {
        ...policyCase.json,
        endpoints: { ...policyCase.json.endpoints, 'http-service': [{ address: '192.168.0.1', port: 0, tags: { 'kuma.io/protocol': 'http2' } }] },
      },
    };
    const { resources } = applyEnvoyToCase(meshRetryPlugin, http2Case);
    const routes = routesOf(httpConnectionManagerOf(kumaJsonOf(resources, LISTENER_TYPE_URL, 'outbound:127.0.0.1:10001')).routeConfig as KumaJson);
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.map((route) => (route.route as KumaJson).retryPolicy)).toEqual(routes.map(() => undefined));
    expect(resources.attributions()).toEqual([]);
  });
});

describe('MeshRetry validation, against Kuma v2.14.3 validator cases', () => {
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
      { field: 'spec.to[0].default.conf.grpc.perTryTimeout', message: 'must be a duration such as "1s", "500ms" or "1m30s"' },
      { field: 'spec.to[0].default.conf.grpc.backOff.baseInterval', message: 'must be a duration such as "1s", "500ms" or "1m30s"' },
    ]);
  });
});
