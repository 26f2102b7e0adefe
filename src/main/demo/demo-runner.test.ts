import { describe, expect, it, vi } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';
import { eventually } from '../../../test/support/eventually.js';
import { putResource } from '../../../test/support/put-resource.js';
import type { FirstConfigBody } from '../../shared/api-types.js';
import type { DemoStatus } from '../../shared/demo-types.js';
import type { PostCreateStrategy } from '../../shared/proxy-events.js';
import type { Core } from '../core.js';

// A core, seven proxies and two gRPC servers per test on a shared 2-core machine: bounds, not timings.
vi.setConfig({ testTimeout: 90_000 });

async function call(core: Core, method: 'GET' | 'POST' | 'DELETE', path = '/demo'): Promise<{ status: number; body: DemoStatus & { details?: string } }> {
  const response = await fetch(`${core.api.url}${path}`, { method });
  return { status: response.status, body: (await response.json()) as DemoStatus & { details?: string } };
}

async function names(core: Core, path: string): Promise<string[]> {
  const response = await fetch(`${core.api.url}${path}`);
  if (response.status === 404) return [];
  return ((await response.json()) as { items: { name: string }[] }).items.map((item) => item.name).sort();
}

describe('the demo mesh (/demo)', () => {
  it.each<PostCreateStrategy>(['sleep', 'invalidate', 'none'])(
    'registers every proxy from node metadata, so each goes through the post-create strategy in force (%s), and stops clean',
    async (strategy) => {
      const core = await startTestCore();
      core.settings.update({ 'store.cache.expirationTime': '300ms', 'xds.dataplaneConfigurationRefreshInterval': '300ms', 'xds.postCreateStrategy': strategy });
      const { status, body: started } = await call(core, 'POST');
      expect(status).toBe(200);
      expect(started.state).toBe('running');
      for (const proxyId of started.proxies) {
        const name = proxyId.slice('demo.'.length);
        const firstConfig = await eventually(async () => {
          const body = (await (await fetch(`${core.api.url}/meshes/demo/dataplanes/${name}/_first-config`)).json()) as FirstConfigBody;
          expect(body.total.complete, proxyId).toBe(true);
          return body;
        });
        expect(firstConfig.registration?.origin, proxyId).toBe('metadata');
        expect(firstConfig.postCreateWait?.strategy, proxyId).toBe(strategy);
        if (strategy === 'sleep') expect(firstConfig.postCreateWait!.waitedMs, proxyId).toBeGreaterThanOrEqual(300);
      }
      expect(await names(core, '/meshes/demo/dataplanes')).toEqual(['greeter-1', 'greeter-2', 'greeter-client', 'inventory-1', 'inventory-2', 'orders-1', 'orders-2', 'web-1', 'web-2']);

      const { body: stopped } = await call(core, 'DELETE');
      expect(stopped).toEqual({ state: 'stopped', mesh: 'demo', proxies: [], stoppedAt: expect.any(Number) });
      expect(await names(core, '/meshes')).toEqual(['default']);
      expect(await names(core, '/meshes/default/meshtimeouts')).toEqual(['mesh-gateways-timeout-all-default', 'mesh-timeout-all-default']);
    },
  );

  it('never deletes what the user made or changed in the demo mesh, and says what it kept', async () => {
    const core = await startTestCore();
    await call(core, 'POST');
    const timeout = { type: 'MeshTimeout', mesh: 'demo', name: 'greeter-timeout', spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'MeshService', name: 'greeter' }, default: { http: { requestTimeout: '5s' } } }] } };
    await putResource(core.api.url, '/meshes/demo/meshtimeouts/greeter-timeout', timeout);
    const retry = { type: 'MeshRetry', mesh: 'demo', name: 'my-retry', spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: { grpc: { numRetries: 2 } } }] } };
    await putResource(core.api.url, '/meshes/demo/meshretries/my-retry', retry);

    const { body: stopped } = await call(core, 'DELETE');
    expect(stopped.kept).toEqual(['MeshTimeout demo/greeter-timeout', 'Mesh demo']);
    expect(await names(core, '/meshes')).toEqual(['default', 'demo']);
    expect(await names(core, '/meshes/demo/meshtimeouts')).toEqual(['greeter-timeout']);
    expect(await names(core, '/meshes/demo/meshretries')).toEqual(['my-retry']);
    expect(await names(core, '/meshes/demo/meshhttproutes')).toEqual([]);
    expect(await names(core, '/meshes/demo/dataplanes')).toEqual([]);
  });

  it('refuses to start in a mesh named like its own that the user made, writing nothing', async () => {
    const core = await startTestCore();
    await putResource(core.api.url, '/meshes/demo', { type: 'Mesh', name: 'demo' });
    const { status, body } = await call(core, 'POST');
    expect(status).toBe(409);
    expect(body.details).toContain('a mesh named "demo" exists and the demo did not create it');
    expect((await call(core, 'GET')).body).toMatchObject({ state: 'stopped', error: expect.stringContaining('rename or delete that mesh') });
    expect(await names(core, '/meshes/demo/dataplanes')).toEqual([]);
    expect(await names(core, '/meshes/demo/meshhttproutes')).toEqual([]);
  });
});
