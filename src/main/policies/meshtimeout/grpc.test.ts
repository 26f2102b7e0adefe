import * as grpc from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startEchoServer } from '../../../../test/support/echo-server.js';
import { registerGrpcXds } from '../../../../test/support/grpc-xds.js';
import { grpcClientWithPolicy, grpcRouteConfig, grpcXdsClientOf } from '../../../../test/support/policy-grpc.js';
import type { Rule } from '../core/rules.js';
import type { MeshTimeoutPolicyConf } from './api.js';
import { meshTimeoutPlugin } from './plugin.js';

await registerGrpcXds();

const origin = { type: 'MeshTimeout', mesh: 'default', name: 'timeout-echo', item: 'spec.to[0]' } as const;
const toEcho = (conf: MeshTimeoutPolicyConf): Rule<MeshTimeoutPolicyConf>[] => [{ subset: [{ key: 'kuma.io/service', value: 'echo' }], conf, origins: [origin] }];

describe('MeshTimeout for proxyless gRPC (gRFC A31)', () => {
  it("caps a call's deadline with the route's max_stream_duration, the shorter of requestTimeout and maxStreamDuration", () => {
    const { resources, unapplied } = grpcClientWithPolicy(meshTimeoutPlugin, {
      to: toEcho({ connectionTimeout: '2s', idleTimeout: '1h', http: { requestTimeout: '1s', maxStreamDuration: '500ms', streamIdleTimeout: '30s' } }),
    });
    const [route] = grpcRouteConfig(resources).virtual_hosts[0]!.routes;
    expect(route!.route.max_stream_duration).toMatchObject({ max_stream_duration: { seconds: '0', nanos: 500_000_000 } });
    expect(resources.attributions()).toEqual([
      expect.objectContaining({ resource: 'echo', path: 'virtual_hosts[0].routes[0].route.max_stream_duration.max_stream_duration', origins: [origin] }),
    ]);
    expect(unapplied.map(({ field }) => field)).toEqual(['spec.to[0].default.connectionTimeout', 'spec.to[0].default.idleTimeout', 'spec.to[0].default.http.streamIdleTimeout']);
    expect(unapplied.every(({ policy, reason }) => policy.name === 'timeout-echo' && reason.includes('gRFC'))).toBe(true);
  });

  it('leaves the deadline alone for a timeout of 0 and without a rule', () => {
    for (const to of [toEcho({ http: { requestTimeout: '0s' } }), []]) {
      const { resources } = grpcClientWithPolicy(meshTimeoutPlugin, { to });
      expect(grpcRouteConfig(resources).virtual_hosts[0]!.routes[0]!.route.max_stream_duration).toBeNull();
    }
  });

  it('reports inbound rules, which a proxyless client gets no configuration for', () => {
    const inbound = new Map([['127.0.0.1:8080', [{ conf: { http: { requestTimeout: '1s' } }, origins: [{ ...origin, item: 'spec.rules[0]' }] }]]]);
    const { unapplied } = grpcClientWithPolicy(meshTimeoutPlugin, { inbound });
    expect(unapplied).toEqual([expect.objectContaining({ field: 'spec.rules[0].default.http.requestTimeout' })]);
  });

  it("writes no deadline for gRPC C-core, which would end calls 1 to 2 s early, and reports each field that would set one", () => {
    const cCore = { name: 'gRPC C-core linux', version: 'C-core 29.0.0 Python 1.51.1' };
    const { resources, unapplied } = grpcClientWithPolicy(
      meshTimeoutPlugin,
      { to: toEcho({ connectionTimeout: '2s', http: { requestTimeout: '1s', maxStreamDuration: '500ms', streamIdleTimeout: '0s' } }) },
      1,
      cCore,
    );
    expect(grpcRouteConfig(resources).virtual_hosts[0]!.routes[0]!.route.max_stream_duration).toBeNull();
    expect(resources.attributions()).toEqual([]);
    expect(unapplied.map(({ field }) => field)).toEqual([
      'spec.to[0].default.connectionTimeout',
      'spec.to[0].default.http.requestTimeout',
      'spec.to[0].default.http.maxStreamDuration',
      'spec.to[0].default.http.streamIdleTimeout',
    ]);
    const early = unapplied.filter(({ field }) => /requestTimeout|maxStreamDuration/.test(field));
    for (const { reason } of early) expect(reason).toMatch(/^gRPC C-core 29\.0\.0 Python 1\.51\.1 ends a call 1 to 2 s before .*grpc\/grpc#34547/);
    // A zero duration leaves the application's deadline alone on every client: nothing to report.
    expect(grpcClientWithPolicy(meshTimeoutPlugin, { to: toEcho({ http: { requestTimeout: '0s' } }) }, 1, cCore).unapplied).toEqual([]);
  });

  it('a real grpc-js-xds client gets DEADLINE_EXCEEDED from a slow server under a 200ms MeshTimeout', async () => {
    // Answers after 3 s: well inside the client's own 20 s deadline, far beyond the policy's 200 ms.
    const server = await startEchoServer('slow', (call, callback) => {
      const timer = setTimeout(() => callback(null, `slow: ${call.request}`), 3000);
      call.on('cancelled', () => clearTimeout(timer));
    });
    onTestFinished(() => server.stop());
    const { resources } = grpcClientWithPolicy(meshTimeoutPlugin, { to: toEcho({ http: { requestTimeout: '200ms' } }) }, server.port);
    const client = await grpcXdsClientOf(resources);
    await expect(client.echo('hello', 20_000)).rejects.toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
  }, 30_000);
});
