import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../../test/support/temp-database.js';
import type { Resource, ResourceInput, ResourceType } from '../../shared/resources.js';
import { Settings } from '../config/settings.js';
import { EventBus } from '../events/event-bus.js';
import type { ListOptions, ReadOnlyResourceManager } from '../manager/interfaces.js';
import { ResourceManager } from '../manager/resource-manager.js';
import { createMetrics, type Metrics } from '../metrics/metrics.js';
import type { Db } from '../store/database.js';
import { ResourceNotFoundError } from '../store/errors.js';
import { ResourceStore } from '../store/resource-store.js';
import { CachedManager, type CachedManagerOptions } from './cached-manager.js';
import { settingsTable } from '../store/settings-table.js';

/** The real manager, with a count of the reads that reach it. */
class CountingReads implements ReadOnlyResourceManager {
  gets = 0;
  lists = 0;

  constructor(private readonly manager: ReadOnlyResourceManager) {}

  get<T extends ResourceType>(type: T, key: { mesh: string; name: string }): Promise<Resource<T>> {
    this.gets++;
    return this.manager.get(type, key);
  }

  list<T extends ResourceType>(type: T, options?: ListOptions): Promise<Resource<T>[]> {
    this.lists++;
    return this.manager.list(type, options);
  }
}

function dataplane(mesh: string, name: string, port = 18080): ResourceInput<'Dataplane'> {
  return {
    type: 'Dataplane',
    mesh,
    name,
    labels: {},
    spec: { networking: { address: '127.0.0.1', inbound: [{ port, tags: { 'kuma.io/service': 'backend' } }] } },
  };
}

/** `store_cache` as `operation/resource_type/result` → count, read from the registry like /metrics does. */
async function storeCacheCounts(metrics: Metrics): Promise<Record<string, number>> {
  const metric = metrics.registry.getSingleMetric('store_cache');
  const { values } = await metric!.get();
  return Object.fromEntries(
    values.map(({ labels, value }) => [`${labels.operation}/${labels.resource_type}/${labels.result}`, value]),
  );
}

let db: Db;
let events: EventBus;
let manager: ResourceManager;
let reads: CountingReads;
let metrics: Metrics;
let time: number;
let ttl: number;
let cached: CachedManager;

function cachedManager(options: Partial<CachedManagerOptions> = {}): CachedManager {
  cached = new CachedManager({ delegate: reads, ttl: () => ttl, metrics, now: () => time, ...options });
  return cached;
}

beforeEach(async () => {
  db = tempDatabase().open();
  events = new EventBus();
  manager = new ResourceManager({ store: new ResourceStore(db), events });
  await manager.ensureDefaultMesh();
  await manager.create({ type: 'Mesh', mesh: '', name: 'other', labels: {}, spec: {} });
  await manager.create(dataplane('default', 'backend-1'));
  reads = new CountingReads(manager);
  metrics = createMetrics();
  time = 0;
  ttl = 1_000;
});

afterEach(() => {
  cached?.close();
});

describe('CachedManager', () => {
  it('reads a cold key from the store once for 50 concurrent gets; the others wait for that read', async () => {
    const cache = cachedManager();

    const answers = await Promise.all(
      Array.from({ length: 50 }, () => cache.get('Dataplane', { mesh: 'default', name: 'backend-1' })),
    );

    expect(reads.gets).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]!.meta.name).toBe('backend-1');
    const counts = await storeCacheCounts(metrics);
    expect(counts['get/Dataplane/miss']).toBe(1);
    expect((counts['get/Dataplane/hit'] ?? 0) + (counts['get/Dataplane/hit-wait'] ?? 0)).toBe(49);
  });

  it('counts a later lookup of a fresh key as a hit', async () => {
    const cache = cachedManager();
    await cache.list('Dataplane', { mesh: 'default' });
    time = 999;
    await cache.list('Dataplane', { mesh: 'default' });

    expect(reads.lists).toBe(1);
    expect(await storeCacheCounts(metrics)).toEqual({ 'list/Dataplane/miss': 1, 'list/Dataplane/hit': 1 });
  });

  it('serves what it read until the TTL passes, then reads the store again and sees newer writes', async () => {
    const cache = cachedManager();
    const key = { mesh: 'default', name: 'backend-1' };
    const first = await cache.get('Dataplane', key);
    await manager.update({ ...dataplane('default', 'backend-1', 19090), version: first.meta.version });

    time = 999;
    expect((await cache.get('Dataplane', key)).meta.version).toBe(first.meta.version);
    expect(reads.gets).toBe(1);

    time = 1_000;
    expect((await cache.get('Dataplane', key)).meta.version).toBe(first.meta.version + 1);
    expect(reads.gets).toBe(2);
  });

  describe('follows store.cache.expirationTime changed at run time', () => {
    function cacheWithSettings(expirationTime: string) {
      const settings = new Settings({ table: settingsTable(db), events });
      settings.update({ 'store.cache.expirationTime': expirationTime });
      return { settings, cache: cachedManager({ ttl: () => settings.get('store.cache.expirationTime') }) };
    }

    it('expires a live entry when the TTL is shortened', async () => {
      const { settings, cache } = cacheWithSettings('10s');
      await cache.list('Mesh');
      time = 2_000;
      await cache.list('Mesh');
      expect(reads.lists).toBe(1);

      settings.update({ 'store.cache.expirationTime': '1s' });
      await cache.list('Mesh');
      expect(reads.lists).toBe(2);
    });

    it('keeps an entry alive longer when the TTL is lengthened', async () => {
      const { settings, cache } = cacheWithSettings('1s');
      await cache.list('Mesh');

      settings.update({ 'store.cache.expirationTime': '10s' });
      time = 5_000;
      await cache.list('Mesh');
      expect(reads.lists).toBe(1);
      expect(cache.entries()).toMatchObject([{ key: 'LIST:Mesh:', ageMs: 5_000, timeLeftMs: 5_000 }]);
    });

    it('reads the store on every lookup once the TTL is 0s', async () => {
      const { cache } = cacheWithSettings('0s');
      await cache.list('Mesh');
      await cache.list('Mesh');
      expect(reads.lists).toBe(2);
      expect(cache.entries()).toEqual([]);
    });
  });

  it('does not cache an error: the next lookup reads the store again', async () => {
    const cache = cachedManager();
    const key = { mesh: 'default', name: 'backend-2' };

    await expect(cache.get('Dataplane', key)).rejects.toBeInstanceOf(ResourceNotFoundError);
    await manager.create(dataplane('default', 'backend-2', 18081));

    expect((await cache.get('Dataplane', key)).meta.name).toBe('backend-2');
    expect(reads.gets).toBe(2);
    expect(await storeCacheCounts(metrics)).toEqual({ 'get/Dataplane/miss': 2 });
  });

  it('on invalidate drops the GET of the resource and the LISTs of its type in its mesh and across meshes', async () => {
    const cache = cachedManager();
    await cache.get('Dataplane', { mesh: 'default', name: 'backend-1' });
    await cache.list('Dataplane', { mesh: 'default' });
    await cache.list('Dataplane');
    await cache.list('Dataplane', { mesh: 'other' });
    await cache.get('Mesh', { mesh: '', name: 'default' });
    await cache.list('Mesh');

    await manager.create(dataplane('default', 'backend-2', 18081));
    cache.invalidate({ type: 'Dataplane', mesh: 'default', name: 'backend-2' });
    cache.invalidate({ type: 'Dataplane', mesh: 'default', name: 'backend-1' });

    expect(cache.entries().map((entry) => entry.key)).toEqual(['LIST:Dataplane:other', 'GET:Mesh:default:', 'LIST:Mesh:']);
    const listed = await cache.list('Dataplane', { mesh: 'default' });
    expect(listed.map((resource) => resource.meta.name)).toEqual(['backend-1', 'backend-2']);
  });

  it('describes its entries under Kuma keys for the UI', async () => {
    const cache = cachedManager();
    await cache.get('Dataplane', { mesh: 'default', name: 'backend-1' });
    time = 400;
    await cache.list('Dataplane', { mesh: 'default' });
    time = 500;

    expect(cache.entries()).toEqual([
      {
        key: 'GET:Dataplane:backend-1:default',
        operation: 'get',
        type: 'Dataplane',
        mesh: 'default',
        name: 'backend-1',
        ageMs: 500,
        timeLeftMs: 500,
      },
      { key: 'LIST:Dataplane:default', operation: 'list', type: 'Dataplane', mesh: 'default', ageMs: 100, timeLeftMs: 900 },
    ]);
  });

  it('hands out frozen results, so that no caller can change what the others read', async () => {
    const cache = cachedManager();
    const resource = await cache.get('Dataplane', { mesh: 'default', name: 'backend-1' });
    const list = await cache.list('Dataplane', { mesh: 'default' });

    expect(() => {
      resource.meta.labels.team = 'payments';
    }).toThrow(TypeError);
    expect(() => {
      resource.spec.networking.inbound![0]!.port = 1;
    }).toThrow(TypeError);
    expect(() => list.push(resource)).toThrow(TypeError);
    expect(() => list.splice(0, 1)).toThrow(TypeError);
  });

  it('hands out a list that did not change since it expired as the same objects, and a changed resource anew', async () => {
    const cache = cachedManager();
    await manager.create(dataplane('default', 'backend-2', 18081));
    const first = await cache.list('Dataplane', { mesh: 'default' });

    time = 1_000;
    const unchanged = await cache.list('Dataplane', { mesh: 'default' });
    expect(reads.lists).toBe(2);
    expect(unchanged).toBe(first);

    const [backend1, backend2] = first;
    await manager.update({ ...dataplane('default', 'backend-2', 19090), version: backend2!.meta.version });
    time = 2_000;
    const changed = await cache.list('Dataplane', { mesh: 'default' });
    expect(changed).not.toBe(first);
    expect(changed[0]).toBe(backend1);
    expect(changed[1]).not.toBe(backend2);
    expect(changed[1]!.spec.networking.inbound![0]!.port).toBe(19090);
    expect(Object.isFrozen(changed[1]!.spec)).toBe(true);
  });

  it('hands out a resource deleted and created again within one millisecond anew', async () => {
    const store = new ResourceStore(db, { now: () => new Date(Date.UTC(2026, 0, 1)) });
    const writer = new ResourceManager({ store, events });
    const cache = cachedManager({ delegate: writer });
    await writer.create(dataplane('default', 'backend-2', 18081));
    const first = await cache.list('Dataplane', { mesh: 'default' });

    await writer.delete({ type: 'Dataplane', mesh: 'default', name: 'backend-2' });
    await writer.create(dataplane('default', 'backend-2', 19090));
    time = 1_000;
    const recreated = await cache.list('Dataplane', { mesh: 'default' });
    expect(recreated[0]).toBe(first[0]);
    expect(recreated[1]!.spec.networking.inbound![0]!.port).toBe(19090);
  });
});
