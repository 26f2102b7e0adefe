import * as grpc from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEchoServer } from '../../../../test/support/echo-server.js';
import { registerGrpcXds } from '../../../../test/support/grpc-xds.js';
import { grpcClientWithPolicy, grpcRouteConfig, grpcXdsClientOf, pythonXdsClientOf } from '../../../../test/support/policy-grpc.js';
import type { Rule } from '../core/rules.js';
import type { MeshRetryConf } from './api.js';
import { meshRetryPlugin } from './plugin.js';

await registerGrpcXds();

const origin = { type: 'MeshRetry', mesh: 'default', name: 'retry-echo', item: 'spec.to[0]' } as const;
const toEcho = (conf: MeshRetryConf): Rule<MeshRetryConf>[] => [{ subset: [], conf, origins: [origin] }];

describe('MeshRetry for proxyless gRPC (gRFC A44)', () => {
  it('writes a retry_policy with gRPC status names, retries and back-off, and reports what gRPC has no field for', () => {
    const { resources, unapplied } = grpcClientWithPolicy(meshRetryPlugin, {
      to: toEcho({
        http: { numRetries: 3 },
        grpc: {
          numRetries: 7,
          perTryTimeout: '2s',
          backOff: { baseInterval: '10ms', maxInterval: '1s' },
          rateLimitedBackOff: { resetHeaders: [{ name: 'retry-after', format: 'Seconds' }] },
          retryOn: ['Canceled', 'DeadlineExceeded', 'Internal', 'ResourceExhausted', 'Unavailable'],
        },
      }),
    });
    const policy = grpcRouteConfig(resources).virtual_hosts[0]!.routes[0]!.route.retry_policy;
    expect(policy).toMatchObject({
      retry_on: 'cancelled,deadline-exceeded,internal,resource-exhausted,unavailable',
      num_retries: { value: 7 },
      retry_back_off: { base_interval: { seconds: '0', nanos: 10_000_000 }, max_interval: { seconds: '1', nanos: 0 } },
    });
    expect(unapplied.map(({ field }) => field)).toEqual([
      'spec.to[0].default.grpc.perTryTimeout',
      'spec.to[0].default.grpc.rateLimitedBackOff',
      'spec.to[0].default.grpc.numRetries',
    ]);
  });

  it("without retryOn retries on the statuses among Kuma's default conditions; numRetries 0 and a conf without grpc give none", () => {
    const { resources } = grpcClientWithPolicy(meshRetryPlugin, { to: toEcho({ grpc: { numRetries: 2 } }) });
    expect(grpcRouteConfig(resources).virtual_hosts[0]!.routes[0]!.route.retry_policy).toMatchObject({ retry_on: 'cancelled,resource-exhausted,unavailable' });
    for (const conf of [{ grpc: { numRetries: 0, perTryTimeout: '1s' } }, { http: { numRetries: 2 } }]) {
      const { resources: none, unapplied } = grpcClientWithPolicy(meshRetryPlugin, { to: toEcho(conf) });
      expect(grpcRouteConfig(none).virtual_hosts[0]!.routes[0]!.route.retry_policy).toBeNull();
      expect(unapplied).toEqual([]);
    }
  });

  /** A server failing its first two calls with UNAVAILABLE, under a MeshRetry of two retries on Unavailable. */
  async function flakyServerUnderRetry() {
    const counter = { attempts: 0 };
    const server = await startEchoServer('flaky', (call, callback) => {
      counter.attempts += 1;
      if (counter.attempts <= 2) callback({ code: grpc.status.UNAVAILABLE, details: `attempt ${counter.attempts} fails` });
      else callback(null, `flaky: ${call.request}`);
    });
    onTestFinished(() => server.stop());
    const { resources } = grpcClientWithPolicy(
      meshRetryPlugin,
      { to: toEcho({ grpc: { numRetries: 2, retryOn: ['Unavailable'], backOff: { baseInterval: '10ms' } } }) },
      server.port,
    );
    return { counter, resources };
  }

  it('a real grpc-js-xds client succeeds against a server failing twice with UNAVAILABLE, and the server counted three attempts', async () => {
    const { counter, resources } = await flakyServerUnderRetry();
    const client = await grpcXdsClientOf(resources);
    expect(await client.echo('hello', 20_000)).toBe('flaky: hello');
    expect(counter.attempts).toBe(3);
  }, 30_000);

  it('a real python3-grpcio (C-core) client does the same', async () => {
    const { counter, resources } = await flakyServerUnderRetry();
    const client = await pythonXdsClientOf(resources);
    expect(await client.call('hello')).toEqual({ ok: true, reply: 'flaky: hello' });
    expect(counter.attempts).toBe(3);
  }, 30_000);
});
