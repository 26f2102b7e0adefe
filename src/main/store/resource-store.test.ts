import { beforeEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../../test/support/temp-database.js';
import type { DataplaneSpec, Resource, ResourceInput, ResourceKey } from '../../shared/resources.js';
import type { Db } from './database.js';
import { BrokenRowError, ResourceAlreadyExistsError, ResourceConflictError, ResourceNotFoundError } from './errors.js';
import { ResourceStore } from './resource-store.js';
import { allResources, keyOf } from './testing/resource-keys.js';

function dataplaneSpec(port: number): DataplaneSpec {
  return {
    networking: {
      address: '127.0.0.1',
      inbound: [{ port, servicePort: port + 1, tags: { 'kuma.io/service': 'backend' } }],
    },
  };
}

function mesh(name: string, labels: Record<string, string> = {}): ResourceInput<'Mesh'> {
  return { type: 'Mesh', mesh: '', name, labels, spec: {} };
}

function dataplane(meshName: string, name: string, port = 18080): ResourceInput<'Dataplane'> {
  return { type: 'Dataplane', mesh: meshName, name, labels: { team: 'core' }, spec: dataplaneSpec(port) };
}

/** Hands out 2026-01-01T00:00:00Z, then one second later on every call. */
function steppingClock(): () => Date {
  let seconds = 0;
  return () => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds++));
}

let open: () => Db;

beforeEach(() => {
  ({ open } = tempDatabase());
});

describe('ResourceStore', () => {
  it('creates a resource at version 1 with equal creation and modification times in ISO-8601 UTC', () => {
    const store = new ResourceStore(open(), { now: steppingClock() });

    const created = store.create(dataplane('default', 'backend-1'));

    expect(created).toEqual({
      type: 'Dataplane',
      meta: {
        mesh: 'default',
        name: 'backend-1',
        version: 1,
        creationTime: '2026-01-01T00:00:00.000Z',
        modificationTime: '2026-01-01T00:00:00.000Z',
        labels: { team: 'core' },
      },
      spec: dataplaneSpec(18080),
    });
    expect(store.get(keyOf(dataplane('default', 'backend-1')))).toEqual(created);
  });

  it('keys a Mesh with mesh "" whatever mesh the caller passes', () => {
    const store = new ResourceStore(open());

    const created = store.create({ ...mesh('demo'), mesh: 'ignored' });

    expect(created.meta.mesh).toBe('');
    expect(store.get({ type: 'Mesh', mesh: '', name: 'demo' })).toEqual(created);
    expect(store.get({ type: 'Mesh', mesh: 'demo', name: 'demo' })).toEqual(created);
  });

  it('lists by type ordered by mesh then name, optionally narrowed to one mesh', () => {
    const store = new ResourceStore(open());
    store.create(dataplane('zeta', 'a'));
    store.create(dataplane('alpha', 'web-1'));
    store.create(dataplane('alpha', 'backend-1'));
    store.create(mesh('zeta'));
    store.create(mesh('alpha'));

    const names = (resources: Resource[]) => resources.map((r) => `${r.meta.mesh}/${r.meta.name}`);
    expect(names(store.list('Dataplane'))).toEqual(['alpha/backend-1', 'alpha/web-1', 'zeta/a']);
    expect(names(store.list('Dataplane', 'alpha'))).toEqual(['alpha/backend-1', 'alpha/web-1']);
    expect(names(store.list('Dataplane', 'missing'))).toEqual([]);
    expect(names(store.list('Mesh', 'alpha'))).toEqual(['/alpha', '/zeta']);
    expect(store.count('Dataplane', 'alpha')).toBe(2);
    expect(store.count('Dataplane', 'missing')).toBe(0);
    expect(store.count('Mesh', 'anything')).toBe(2);
  });

  it('increments the version on every update, keeps the creation time and moves the modification time', () => {
    const store = new ResourceStore(open(), { now: steppingClock() });
    const created = store.create(dataplane('default', 'backend-1'));
    const key = keyOf(dataplane('default', 'backend-1'));

    const first = store.update({ ...dataplane('default', 'backend-1', 19000), version: 1 });
    const second = store.update({ ...dataplane('default', 'backend-1', 20000), labels: { team: 'edge' } });

    expect(first.meta.version).toBe(2);
    expect(second.meta.version).toBe(3);
    expect(second.meta.creationTime).toBe(created.meta.creationTime);
    expect(first.meta.modificationTime).toBe('2026-01-01T00:00:01.000Z');
    expect(second.meta.modificationTime).toBe('2026-01-01T00:00:02.000Z');
    expect(second.meta.labels).toEqual({ team: 'edge' });
    expect(store.get(key)).toEqual(second);
  });

  it('refuses an update with a stale version and changes nothing', () => {
    const store = new ResourceStore(open());
    store.create(dataplane('default', 'backend-1'));
    store.update(dataplane('default', 'backend-1', 19000));
    const before = allResources(store);

    const stale = () => store.update({ ...dataplane('default', 'backend-1', 20000), version: 1 });

    expect(stale).toThrow(ResourceConflictError);
    expect(stale).toThrow(
      'Dataplane "backend-1" in mesh "default" was modified concurrently: you sent version 1, the stored version is 2',
    );
    expect(allResources(store)).toEqual(before);
  });

  it('refuses to update a resource that does not exist', () => {
    const store = new ResourceStore(open());

    expect(() => store.update(dataplane('default', 'ghost'))).toThrow(ResourceNotFoundError);
    expect(() => store.update({ ...dataplane('default', 'ghost'), version: 1 })).toThrow(ResourceNotFoundError);
    expect(allResources(store)).toEqual([]);
  });

  it('refuses to create a resource twice and keeps the first one', () => {
    const store = new ResourceStore(open());
    const first = store.create(dataplane('default', 'backend-1'));

    expect(() => store.create(dataplane('default', 'backend-1', 19000))).toThrow(ResourceAlreadyExistsError);
    expect(() => store.create(dataplane('default', 'backend-1'))).toThrow(
      'Dataplane "backend-1" in mesh "default" already exists',
    );
    expect(allResources(store)).toEqual([first]);
  });

  it('reports a missing resource as not found from get and as undefined from find', () => {
    const store = new ResourceStore(open());
    const key: ResourceKey = { type: 'Dataplane', mesh: 'default', name: 'ghost' };

    expect(() => store.get(key)).toThrow(ResourceNotFoundError);
    expect(() => store.get(key)).toThrow('Dataplane "ghost" in mesh "default" not found');
    expect(store.find(key)).toBeUndefined();
  });

  it('deletes a resource and returns its key and the version it had', () => {
    const store = new ResourceStore(open());
    const created = store.create(dataplane('default', 'backend-1'));
    const key = keyOf(dataplane('default', 'backend-1'));

    expect(store.delete(key)).toEqual({ key, version: created.meta.version });
    expect(store.find(key)).toBeUndefined();
    expect(() => store.delete(key)).toThrow(ResourceNotFoundError);
  });

  it('stamps a resource deleted and created again within one millisecond later than the one it replaced', () => {
    const store = new ResourceStore(open(), { now: () => new Date(Date.UTC(2026, 0, 1)) });
    const key = keyOf(dataplane('default', 'backend-1'));
    const replaced = store.create(dataplane('default', 'backend-1'));
    store.delete(key);

    const created = store.create(dataplane('default', 'backend-1', 19000));
    expect(created.meta.version).toBe(replaced.meta.version);
    expect(created.meta.creationTime > replaced.meta.modificationTime).toBe(true);
  });

  it('refuses a delete with a stale version and keeps the resource', () => {
    const store = new ResourceStore(open());
    store.create(dataplane('default', 'backend-1'));
    const current = store.update(dataplane('default', 'backend-1', 19000));

    expect(() => store.delete(keyOf(dataplane('default', 'backend-1')), 1)).toThrow(ResourceConflictError);
    expect(allResources(store)).toEqual([current]);
    store.delete(keyOf(dataplane('default', 'backend-1')), 2);
    expect(allResources(store)).toEqual([]);
  });

  it('leaves nothing behind when a transaction throws', () => {
    const store = new ResourceStore(open());
    const kept = store.create(mesh('default'));

    expect(() =>
      store.transaction(() => {
        store.create(dataplane('default', 'backend-1'));
        store.update(mesh('default', { touched: 'yes' }));
        store.create(mesh('default'));
      }),
    ).toThrow(ResourceAlreadyExistsError);
    expect(allResources(store)).toEqual([kept]);
  });

  it('returns the value of a committed transaction', () => {
    const store = new ResourceStore(open());

    const names = store.transaction(() => [store.create(mesh('a')), store.create(mesh('b'))].map((m) => m.meta.name));

    expect(names).toEqual(['a', 'b']);
    expect(store.count('Mesh', '')).toBe(2);
  });

  it('keeps data and versions when the file is reopened', () => {
    const first = open();
    const store = new ResourceStore(first);
    store.create(mesh('default', { env: 'dev' }));
    store.create(dataplane('default', 'backend-1'));
    store.update(dataplane('default', 'backend-1', 19000));
    const before = allResources(store);
    first.close();

    const reopened = new ResourceStore(open());

    expect(allResources(reopened)).toEqual(before);
    expect(reopened.get(keyOf(dataplane('default', 'backend-1'))).meta.version).toBe(2);
  });
});

describe('ResourceStore with a row whose JSON does not parse', () => {
  it('leaves it out of listings and reports it, names it on a get, and still knows its version and deletes it', () => {
    const db = open();
    const store = new ResourceStore(db);
    store.create(dataplane('default', 'backend-1'));
    store.create(dataplane('default', 'torn-1'));
    // Written past the store, as a stray write or a hand edit (while meshdesk was stopped) would.
    db.prepare("UPDATE resources SET labels = '{\"a\":' WHERE name = 'torn-1'").run();
    const torn = keyOf(dataplane('default', 'torn-1'));

    expect(store.list('Dataplane', 'default').map((each) => each.meta.name)).toEqual(['backend-1']);
    expect(store.brokenRows.list()).toEqual([{ table: 'resources', key: torn, reason: expect.stringMatching(/^stored JSON does not parse/) }]);
    expect(() => store.get(torn)).toThrow(BrokenRowError);
    expect(() => store.get(torn)).toThrow('the stored Dataplane "torn-1" in mesh "default" is unusable (stored JSON does not parse');
    expect(store.version(torn)).toBe(1);

    expect(store.delete(torn)).toEqual({ key: torn, version: 1 });
    expect(store.brokenRows.list()).toEqual([]);
  });
});

describe('ResourceStore.inboundsOn', () => {
  it("finds the mesh's other inbounds on an address and port, by the inbound's own address or the Dataplane's", () => {
    const store = new ResourceStore(open());
    store.create(mesh('default'));
    store.create(mesh('other'));
    const at = (name: string, networking: DataplaneSpec['networking'], meshName = 'default'): void => {
      store.create({ type: 'Dataplane', mesh: meshName, name, labels: {}, spec: { networking } });
    };
    at('plain', { address: '127.0.0.1', inbound: [{ port: 18080, tags: { 'kuma.io/service': 'a' } }] });
    at('own-address', { address: '127.0.0.9', inbound: [{ port: 19000, tags: {} }, { port: 18080, address: '127.0.0.1', tags: {} }] });
    at('prefix-port', { address: '127.0.0.1', inbound: [{ port: 18081, tags: {} }, { port: 1808, tags: {} }] });
    at('service-port', { address: '127.0.0.1', inbound: [{ port: 18999, servicePort: 18080, tags: {} }] });
    at('outbound', { address: '127.0.0.1', outbound: [{ port: 18080, tags: {} }] });
    at('other-address', { address: '127.0.0.2', inbound: [{ port: 18080, tags: {} }] });
    at('other-mesh', { address: '127.0.0.1', inbound: [{ port: 18080, tags: {} }] }, 'other');

    expect(store.inboundsOn('default', 'new', [18080], ['127.0.0.1'])).toEqual([
      { name: 'own-address', index: 1, port: 18080, address: '127.0.0.1' },
      { name: 'plain', index: 0, port: 18080, address: '127.0.0.1' },
    ]);
    // A Dataplane never collides with itself.
    expect(store.inboundsOn('default', 'plain', [18080], ['127.0.0.1']).map((each) => each.name)).toEqual(['own-address']);
  });

  it('looks for a thousand ports and addresses at once, past the depth of a SQL expression', () => {
    const store = new ResourceStore(open());
    store.create(mesh('default'));
    const inbound = Array.from({ length: 1_200 }, (_, index) => ({ port: 20_000 + index, address: `127.0.${index >> 8}.${index & 255}`, tags: {} }));
    store.create({ type: 'Dataplane', mesh: 'default', name: 'wide', labels: {}, spec: { networking: { address: '127.0.0.1', inbound } } });

    const ports = inbound.map((each) => each.port);
    const addresses = inbound.map((each) => each.address);
    expect(store.inboundsOn('default', 'new', ports, addresses)).toHaveLength(1_200);
    expect(store.inboundsOn('default', 'new', [21_199], ['127.0.4.175'])).toEqual([{ name: 'wide', index: 1_199, port: 21_199, address: '127.0.4.175' }]);
  });
});
