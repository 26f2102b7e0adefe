import * as grpc from '@grpc/grpc-js';
import { ClusterResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEchoServer } from '../../../../test/support/echo-server.js';
import { eventually } from '../../../../test/support/eventually.js';
import { registerGrpcXds } from '../../../../test/support/grpc-xds.js';
import { grpcClientWithPolicy, grpcCluster, grpcXdsClientOf } from '../../../../test/support/policy-grpc.js';
import type { Rule } from '../core/rules.js';
import type { MeshCircuitBreakerConf } from './api.js';
import { meshCircuitBreakerPlugin } from './plugin.js';

await registerGrpcXds();

const origin = { type: 'MeshCircuitBreaker', mesh: 'default', name: 'breaker-echo', item: 'spec.to[0]' } as const;
const toEcho = (conf: MeshCircuitBreakerConf): Rule<MeshCircuitBreakerConf>[] => [{ subset: [], conf, origins: [origin] }];

describe('MeshCircuitBreaker for proxyless gRPC (gRFC A32, A50)', () => {
  it('gives gRPC max_requests and success-rate and failure-percentage ejection, and reports the rest', () => {
    const { resources, unapplied } = grpcClientWithPolicy(meshCircuitBreakerPlugin, {
      to: toEcho({
        connectionLimits: { maxConnections: 10, maxPendingRequests: 5, maxRequests: 2 },
        outlierDetection: {
          interval: '1s',
          baseEjectionTime: '30s',
          maxEjectionPercent: 50,
          splitExternalAndLocalErrors: true,
          detectors: {
            totalFailures: { consecutive: 3 },
            successRate: { minimumHosts: 3, requestVolume: 10, standardDeviationFactor: '1.9' },
            failurePercentage: { minimumHosts: 2, requestVolume: 5, threshold: 60 },
          },
          healthyPanicThreshold: 40,
        },
      }),
    });
    expect(grpcCluster(resources)).toMatchObject({
      maxConcurrentRequests: 2,
      outlierDetectionUpdate: {
        interval: { seconds: 1, nanos: 0 },
        base_ejection_time: { seconds: 30, nanos: 0 },
        max_ejection_percent: 50,
        success_rate_ejection: { enforcement_percentage: 100, minimum_hosts: 3, request_volume: 10, stdev_factor: 1900 },
        failure_percentage_ejection: { enforcement_percentage: 100, minimum_hosts: 2, request_volume: 5, threshold: 60 },
      },
    });
    expect(resources.attributions().map(({ path }) => path)).toEqual(['circuit_breakers.thresholds[0].max_requests', 'outlier_detection']);
    expect(unapplied.map(({ field }) => field)).toEqual([
      'spec.to[0].default.connectionLimits.maxConnections',
      'spec.to[0].default.connectionLimits.maxPendingRequests',
      'spec.to[0].default.outlierDetection.detectors.totalFailures',
      'spec.to[0].default.outlierDetection.splitExternalAndLocalErrors',
      'spec.to[0].default.outlierDetection.healthyPanicThreshold',
    ]);
  });

  it('turns success-rate ejection off where detectors leave it out, as Kuma does for Envoy, and writes nothing when disabled', () => {
    const { resources } = grpcClientWithPolicy(meshCircuitBreakerPlugin, { to: toEcho({ outlierDetection: { detectors: { totalFailures: { consecutive: 3 } } } }) });
    const update = grpcCluster(resources).outlierDetectionUpdate as Record<string, unknown>;
    expect([update.success_rate_ejection, update.failure_percentage_ejection]).toEqual([undefined, undefined]);

    const disabled = grpcClientWithPolicy(meshCircuitBreakerPlugin, {
      to: toEcho({ outlierDetection: { disabled: true, healthyPanicThreshold: 10, detectors: { totalFailures: { consecutive: 3 } } } }),
    });
    expect(grpcCluster(disabled.resources).outlierDetectionUpdate).toEqual({ child_policy: [] });
    expect(disabled.unapplied).toEqual([]);
  });

  it('gives every other cluster outlier detection that ejects nothing, so that grpc-js-xds sees ejection added, changed and removed', () => {
    const cluster = (to: Rule<MeshCircuitBreakerConf>[]) => grpcCluster(grpcClientWithPolicy(meshCircuitBreakerPlugin, { to }).resources);
    const none = cluster([]);
    const limitOnly = cluster(toEcho({ connectionLimits: { maxRequests: 2 } }));
    const outlierDetection = { interval: '1s', detectors: { failurePercentage: { threshold: 50 } } };
    const ejecting = cluster(toEcho({ outlierDetection }));
    const limitAndEjecting = cluster(toEcho({ connectionLimits: { maxRequests: 2 }, outlierDetection }));
    for (const update of [none, limitOnly]) {
      const outlierDetection = update.outlierDetectionUpdate as Record<string, unknown>;
      expect([outlierDetection.success_rate_ejection, outlierDetection.failure_percentage_ejection]).toEqual([undefined, undefined]);
    }
    // grpc-js-xds drops an update its resource type calls equal to the one before (XdsClient).
    const sameForGrpcJs = (before: object, after: object) => ClusterResourceType.get().resourcesEqual(before, after);
    expect([sameForGrpcJs(none, ejecting), sameForGrpcJs(limitOnly, limitAndEjecting), sameForGrpcJs(ejecting, none)]).toEqual([false, false, false]);
  });

  it('reports inbound rules, which a proxyless client gets no configuration for', () => {
    const inbound = new Map([['127.0.0.1:8080', [{ conf: { connectionLimits: { maxRequests: 3 } }, origins: [{ ...origin, item: 'spec.rules[0]' }] }]]]);
    const { unapplied } = grpcClientWithPolicy(meshCircuitBreakerPlugin, { inbound });
    expect(unapplied).toEqual([expect.objectContaining({ field: 'spec.rules[0].default.connectionLimits.maxRequests' })]);
  });

  it('a real grpc-js-xds client fails a call over maxRequests at once while the first is in flight', async () => {
    const held: (() => void)[] = [];
    const server = await startEchoServer('held', (call, callback) => held.push(() => callback(null, `held: ${call.request}`)));
    onTestFinished(() => server.stop());
    const { resources } = grpcClientWithPolicy(meshCircuitBreakerPlugin, { to: toEcho({ connectionLimits: { maxRequests: 1 } }) }, server.port);
    const client = await grpcXdsClientOf(resources);

    const first = client.echo('first', 20_000);
    await eventually(() => expect(held).toHaveLength(1));
    await expect(client.echo('second', 20_000)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    held[0]!();
    expect(await first).toBe('held: first');
    expect(held).toHaveLength(1);
  }, 30_000);

  it('a real grpc-js-xds client stops calling an endpoint that fails every call once failure-percentage ejection removes it', async () => {
    const good = await startEchoServer('good');
    const bad = await startEchoServer('bad', (_call, callback) => callback({ code: grpc.status.UNAVAILABLE, details: 'always failing' }));
    onTestFinished(async () => {
      await Promise.all([good.stop(), bad.stop()]);
    });
    const outlierDetection = {
      interval: '200ms',
      baseEjectionTime: '60s',
      maxEjectionPercent: 50,
      detectors: { failurePercentage: { minimumHosts: 2, requestVolume: 3, threshold: 50 } },
    };
    const { resources } = grpcClientWithPolicy(meshCircuitBreakerPlugin, { to: toEcho({ outlierDetection }) }, [good.port, bad.port]);
    const client = await grpcXdsClientOf(resources);

    // Round robin reaches both until an ejection interval has counted the bad one's failures.
    await eventually(async () => {
      const answers = await Promise.allSettled(Array.from({ length: 10 }, () => client.echo('hi', 5000)));
      expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : 'failed'))).toEqual(Array(10).fill('good: hi'));
    });
  }, 30_000);
});
