import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../../test/support/temp-database.js';
import type { ResourceInput } from '../../shared/resources.js';
import { EventBus } from '../events/event-bus.js';
import { ResourceManager } from '../manager/resource-manager.js';
import { createMetrics, type Metrics } from '../metrics/metrics.js';
import type { Db } from '../store/database.js';
import { ResourceNotFoundError } from '../store/errors.js';
import { ResourceStore } from '../store/resource-store.js';
import { CachedManager } from './cached-manager.js';
import { carriedMemo } from '../xds/context/carried-memo.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { MeshContextCache } from './mesh-context-cache.js';

const TTL = 1_000;

function dataplane(name: string, service: string, port = 18080): ResourceInput<'Dataplane'> {
  return {
    type: 'Dataplane',
    mesh: 'default',
    name,
    labels: {},
    spec: { networking: { address: '127.0.0.1', inbound: [{ port, tags: { 'kuma.io/service': service } }] } },
  };
}

/** `mesh_cache` as result → count, read from the registry like /metrics does. */
async function meshCacheCounts(metrics: Metrics): Promise<Record<string, number>> {
  const { values } = await metrics.meshCache.get();
  return Object.fromEntries(values.map(({ labels, value }) => [String(labels.result), value]));
}

let db: Db;
let manager: ResourceManager;
let cachedManager: CachedManager;
let metrics: Metrics;
let time: number;
let contexts: MeshContextCache;

beforeEach(async () => {
  db = tempDatabase().open();
  manager = new ResourceManager({ store: new ResourceStore(db), events: new EventBus() });
  await manager.ensureDefaultMesh();
  await manager.create(dataplane('backend-1', 'backend'));
  metrics = createMetrics();
  time = 0;
  const now = () => time;
  cachedManager = new CachedManager({ delegate: manager, ttl: () => TTL, metrics, now });
  contexts = new MeshContextCache({ cachedManager, ttl: () => TTL, metrics, now });
});

afterEach(() => {
  contexts.close();
  cachedManager.close();
});

describe('MeshContextCache', () => {
  it('builds the context of a mesh from the cached manager', async () => {
    const context = await contexts.get('default');

    expect(context.mesh.meta.name).toBe('default');
    expect([...context.dataplanesByName.keys()]).toEqual(['backend-1']);
    expect(context.endpointsByService.get('backend')).toHaveLength(1);
  });

  it("tags inbounds with meshdesk's zone and puts endpoints in it, as Kuma's Dataplane manager and generators do", async () => {
    const context = await contexts.get('default');

    expect(context.dataplanesByName.get('backend-1')!.spec.networking.inbound![0]!.tags).toEqual({
      'kuma.io/service': 'backend',
      'kuma.io/zone': 'default',
    });
    expect(context.endpointsByService.get('backend')![0]).toMatchObject({ zone: 'default', labels: { 'kuma.io/zone': 'default' } });
  });

  it('counts a first read as a miss and the next ones within the TTL as hits', async () => {
    const first = await contexts.get('default');
    time += TTL - 1;
    const second = await contexts.get('default');

    expect(second).toBe(first);
    expect(await meshCacheCounts(metrics)).toEqual({ miss: 1, hit: 1 });
  });

  it('loads once for concurrent readers, who count as hit-wait', async () => {
    const all = await Promise.all([contexts.get('default'), contexts.get('default'), contexts.get('default')]);

    expect(all[1]).toBe(all[0]);
    expect(all[2]).toBe(all[0]);
    expect(await meshCacheCounts(metrics)).toEqual({ miss: 1, 'hit-wait': 2 });
  });

  it('keeps each mesh apart', async () => {
    await manager.create({ type: 'Mesh', mesh: '', name: 'other', labels: {}, spec: {} });

    const [defaultMesh, other] = await Promise.all([contexts.get('default'), contexts.get('other')]);

    expect(other.mesh.meta.name).toBe('other');
    expect(other.dataplanesByName.size).toBe(0);
    expect(defaultMesh.dataplanesByName.size).toBe(1);
    expect(await meshCacheCounts(metrics)).toEqual({ miss: 2 });
  });

  it('returns the very same context after the TTL when its inputs did not change', async () => {
    const first = await contexts.get('default');
    time += TTL;

    const reloaded = await contexts.get('default');

    expect(reloaded).toBe(first);
    expect(await meshCacheCounts(metrics)).toEqual({ miss: 2 });
  });

  it('builds a new context after the TTL when a dataplane was written', async () => {
    const first = await contexts.get('default');
    await manager.create(dataplane('backend-2', 'backend', 18081));

    expect(await contexts.get('default')).toBe(first);
    time += TTL;
    const next = await contexts.get('default');

    expect(next).not.toBe(first);
    expect(next.hash).not.toBe(first.hash);
    expect([...next.dataplanesByName.keys()]).toEqual(['backend-1', 'backend-2']);
  });

  it("links each context it builds to the mesh's last one, so that a tick finds what the last one made", async () => {
    const memoOf = (context: MeshContext) => carriedMemo<string, object>(context, 'test', () => new Map());
    const made = { made: 'by the first context' };
    memoOf(await contexts.get('default')).set('key', made);
    await manager.create(dataplane('backend-2', 'backend', 18081));
    time += TTL;

    expect(memoOf(await contexts.get('default')).get('key')).toBe(made);
  });

  it("carries the mesh's policies, and builds a new context after the TTL when a policy was written", async () => {
    const first = await contexts.get('default');
    expect(first.policies.map(({ type, meta }) => `${type}/${meta.name}`)).toEqual([
      'MeshCircuitBreaker/mesh-circuit-breaker-all-default',
      'MeshRetry/mesh-retry-all-default',
      'MeshTimeout/mesh-gateways-timeout-all-default',
      'MeshTimeout/mesh-timeout-all-default',
    ]);
    await manager.create({
      type: 'MeshTimeout',
      mesh: 'default',
      name: 'slow-backend',
      labels: {},
      spec: { to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, default: { idleTimeout: '10s' } }] },
    });

    time += TTL;
    const next = await contexts.get('default');

    expect(next.hash).not.toBe(first.hash);
    expect(next.policies.map(({ meta }) => meta.name)).toContain('slow-backend');
    time += TTL;
    expect(await contexts.get('default')).toBe(next);
  });

  it('leaves out a broken policy row (JSON that does not parse, a spec that fails validation) and keeps the others', async () => {
    const breakRow = (type: string, name: string, spec: string) =>
      db.prepare("UPDATE resources SET spec = ? WHERE type = ? AND mesh = 'default' AND name = ?").run(spec, type, name);
    breakRow('MeshRetry', 'mesh-retry-all-default', '{"to": [');
    breakRow('MeshCircuitBreaker', 'mesh-circuit-breaker-all-default', '{"to": [{"targetRef": {"kind": "MeshServiceSubset", "name": "x"}}]}');

    const context = await contexts.get('default');

    expect(context.policies.map(({ meta }) => meta.name)).toEqual(['mesh-gateways-timeout-all-default', 'mesh-timeout-all-default']);
    expect(manager.brokenRows().map(({ key }) => `${key.type}/${key.name}`).sort()).toEqual([
      'MeshCircuitBreaker/mesh-circuit-breaker-all-default',
      'MeshRetry/mesh-retry-all-default',
    ]);
  });

  it("tells its listeners when a mesh's context changed, once the new one is in the cache, and not when it was reused", async () => {
    const changed: string[] = [];
    contexts.onChange((mesh) => changed.push(mesh));
    const afterTurn = () => new Promise((resolve) => setImmediate(resolve));
    const first = await contexts.get('default');
    time += TTL;
    await contexts.get('default');
    await afterTurn();
    expect(changed).toEqual([]);

    await manager.create(dataplane('backend-2', 'backend', 18081));
    time += TTL;
    const next = await contexts.get('default');
    await afterTurn();

    expect(next).not.toBe(first);
    expect(changed).toEqual(['default']);
  });

  it('reads again at once after invalidate, given fresh reads underneath', async () => {
    const first = await contexts.get('default');
    await manager.create(dataplane('backend-2', 'backend', 18081));
    cachedManager.invalidate({ type: 'Dataplane', mesh: 'default', name: 'backend-2' });

    contexts.invalidate('default');
    const next = await contexts.get('default');

    expect(next.dataplanesByName.has('backend-2')).toBe(true);
    expect(next).not.toBe(first);
    expect(await meshCacheCounts(metrics)).toEqual({ miss: 2 });
  });

  it('still reuses the context after invalidate when nothing changed', async () => {
    const first = await contexts.get('default');

    contexts.invalidate('default');

    expect(await contexts.get('default')).toBe(first);
  });

  it('rejects for a mesh that does not exist, and caches no failure', async () => {
    await expect(contexts.get('nowhere')).rejects.toBeInstanceOf(ResourceNotFoundError);
    await manager.create({ type: 'Mesh', mesh: '', name: 'nowhere', labels: {}, spec: {} });

    expect((await contexts.get('nowhere')).mesh.meta.name).toBe('nowhere');
    expect(await meshCacheCounts(metrics)).toEqual({ miss: 2 });
  });

  it('shares one load among registrations that invalidate before it read, and that load sees every one of them', async () => {
    await contexts.get('default'); // cached, as a running mesh has it
    const register = async (name: string) => {
      await manager.create(dataplane(name, 'web', 18100 + Number(name.at(-1))));
      cachedManager.invalidate({ type: 'Dataplane', mesh: 'default', name });
      contexts.invalidate('default');
      return contexts.get('default');
    };
    const seen = await Promise.all([register('web-1'), register('web-2'), register('web-3')]);

    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toBe(seen[0]);
    expect([...seen[0]!.dataplanesByName.keys()]).toEqual(['backend-1', 'web-1', 'web-2', 'web-3']);
    expect(await meshCacheCounts(metrics)).toEqual({ miss: 2, 'hit-wait': 2 });
  });
});
