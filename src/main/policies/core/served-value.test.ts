import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../../test/support/core.js';
import { POLICY_DESCRIPTORS } from '../descriptors.js';
import { putResource } from '../../../../test/support/put-resource.js';
import { servedDuration, servedInteger, servedProblems } from './served-value.js';

describe('servedProblems', () => {
  it("bounds an integer by Kuma's Go kind and by the Envoy field it sets, with Envoy's validate rules", () => {
    expect(servedProblems(servedInteger('uint32'), 2 ** 32)).toEqual(['must be in inclusive range [0, 4294967295] (a uint32)']);
    expect(servedProblems(servedInteger('uint32'), -5)).toEqual(['must be in inclusive range [0, 4294967295] (a uint32)']);
    // Kuma's `*uint` weight lands in a UInt32Value.
    const weight = servedInteger('uint64', 'envoy.config.route.v3.WeightedCluster.ClusterWeight.weight');
    expect(servedProblems(weight, 2 ** 63)).toEqual([
      "must be in inclusive range [0, 4294967295] (a uint32, as Envoy's WeightedCluster.ClusterWeight.weight)",
    ]);
    expect(servedProblems(weight, 2 ** 32 - 1)).toEqual([]);
    const ringSize = servedInteger('uint32', 'envoy.config.cluster.v3.Cluster.RingHashLbConfig.minimum_ring_size');
    expect(servedProblems(ringSize, 8388609)).toEqual([
      "must be servable: Envoy's Cluster.RingHashLbConfig.minimum_ring_size must be at most 8388608 (uint64.lte), got 8388609",
    ]);
    expect(servedProblems(ringSize, 1024)).toEqual([]);
  });

  it("reads a duration as Go does and refuses what a google.protobuf.Duration or Envoy's rule cannot hold", () => {
    const idle = servedDuration('envoy.config.core.v3.HttpProtocolOptions.idle_timeout');
    expect(servedProblems(idle, '999999999999h')).toEqual(['time: invalid duration "999999999999h"']);
    expect(servedProblems(idle, '1.5ns')).toEqual(['"1.5ns" has a fraction of a nanosecond: a duration holds whole nanoseconds']);
    expect(servedProblems(idle, '0.0001ms')).toEqual([]);
    expect(servedProblems(idle, '2562047h')).toEqual([]);
    const connect = servedDuration('envoy.config.cluster.v3.Cluster.connect_timeout');
    expect(servedProblems(connect, '0s')).toEqual(["must be servable: Envoy's Cluster.connect_timeout must be greater than 0s (duration.gt), got 0s"]);
  });

  it('throws for a field name no proto has: a spec shape naming one is a bug', () => {
    expect(() => servedProblems(servedInteger('uint32', 'envoy.config.cluster.v3.Cluster.no_such_field'), 1)).toThrow(/names no field/);
  });
});

const to = (conf: object) => ({ to: [{ targetRef: { kind: 'Mesh' }, default: conf }] });
const backendRefs = (...weights: number[]) => ({
  to: [
    {
      targetRef: { kind: 'MeshService', name: 'backend' },
      rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], default: { backendRefs: weights.map((weight) => ({ kind: 'MeshService', name: 'backend', port: 80, weight })) } }],
    },
  ],
});

// Issue 27: each of these was stored with 201 and then stopped every proxy of the mesh from getting any update.
const UNSERVABLE: ReadonlyArray<[type: string, spec: object, field: string, message: RegExp]> = [
  ['MeshTimeout', to({ idleTimeout: '999999999999h' }), 'spec.to[0].default.idleTimeout', /^time: invalid duration "999999999999h"$/],
  ['MeshTimeout', to({ http: { requestTimeout: '1.5ns' } }), 'spec.to[0].default.http.requestTimeout', /fraction of a nanosecond/],
  ['MeshLoadBalancingStrategy', to({ loadBalancer: { type: 'RingHash', ringHash: { minRingSize: -5 } } }), 'spec.to[0].default.loadBalancer.ringHash.minRingSize', /inclusive range \[0, 4294967295\]/],
  ['MeshLoadBalancingStrategy', to({ loadBalancer: { type: 'Maglev', maglev: { tableSize: 5000012 } } }), 'spec.to[0].default.loadBalancer.maglev.tableSize', /at most 5000011/],
  ['MeshCircuitBreaker', to({ connectionLimits: { maxConnections: 2 ** 32 } }), 'spec.to[0].default.connectionLimits.maxConnections', /inclusive range \[0, 4294967295\]/],
  ['MeshHealthCheck', to({ interval: '10s', timeout: '2s', unhealthyThreshold: 3, healthyThreshold: 2 ** 32, http: {} }), 'spec.to[0].default.healthyThreshold', /^must be in inclusive range \[0, 2147483647\] \(a int32 in Kuma, a uint32 in Envoy's HealthCheck.healthy_threshold\)$/],
  ['MeshCircuitBreaker', to({ outlierDetection: { detectors: { successRate: { standardDeviationFactor: '5000000' } } } }), 'spec.to[0].default.outlierDetection.detectors.successRate.standardDeviationFactor', /at most 4294967.295/],
  ['MeshRateLimit', to({ local: { http: { requestRate: { num: 2 ** 32, interval: '1s' } } } }), 'spec.to[0].default.local.http.requestRate.num', /inclusive range \[0, 4294967295\]/],
  ['MeshHTTPRoute', backendRefs(2 ** 63), 'spec.to[0].rules[0].default.backendRefs[0].weight', /inclusive range \[0, 4294967295\]/],
  ['MeshHTTPRoute', backendRefs(2 ** 31, 2 ** 31), 'spec.to[0].rules[0].default.backendRefs', /weights add up to 4294967296/],
];

describe('the API refuses a policy value no proxy could be sent', () => {
  it.each(UNSERVABLE)('%s: 400 naming %s', async (type, spec, field, message) => {
    const core = await startTestCore();
    const path = `/meshes/default/${POLICY_DESCRIPTORS.find((descriptor) => descriptor.type === type)!.path}/unservable`;
    const response = await fetch(`${core.api.url}${path}`, { method: 'PUT', body: JSON.stringify({ type, mesh: 'default', name: 'unservable', spec }) });
    const body = (await response.json()) as { causes?: { field: string; message: string }[] };
    expect(response.status).toBe(400);
    expect(body.causes).toEqual([{ field, message: expect.stringMatching(message) }]);
    // Nothing was stored.
    await expect(fetch(`${core.api.url}${path}`).then((answer) => answer.status)).resolves.toBe(404);
  });

  it('accepts the largest values that fit', async () => {
    const core = await startTestCore();
    await putResource(core.api.url, '/meshes/default/meshcircuitbreakers/largest', {
      type: 'MeshCircuitBreaker',
      mesh: 'default',
      name: 'largest',
      spec: to({
        connectionLimits: { maxConnections: 2 ** 32 - 1 },
        outlierDetection: { interval: '2562047h', detectors: { totalFailures: { consecutive: 2 ** 32 - 1 } } },
      }),
    });
    await putResource(core.api.url, '/meshes/default/meshhttproutes/largest', { type: 'MeshHTTPRoute', mesh: 'default', name: 'largest', spec: backendRefs(2 ** 31, 2 ** 31 - 1) });
  });
});
