import { beforeEach, describe, expect, it } from 'vitest';
import { tempDatabase } from '../../../test/support/temp-database.js';
import type { DataplaneSpec, Resource, ResourceInput, ResourceKey } from '../../shared/resources.js';
import { EventBus, type CoreEvent } from '../events/event-bus.js';
import { ValidationError } from '../resources/validation-error.js';
import type { Db } from '../store/database.js';
import {
  ResourceConflictError,
  ResourceNotFoundError,
  ResourcePreconditionError,
} from '../store/errors.js';
import { ResourceStore } from '../store/resource-store.js';
import { allResources, keyOf } from '../store/testing/resource-keys.js';
import { ResourceManager } from './resource-manager.js';

function dataplaneSpec(port: number, service = 'backend'): DataplaneSpec {
  return { networking: { address: '127.0.0.1', inbound: [{ port, tags: { 'kuma.io/service': service } }] } };
}

function mesh(name: string): ResourceInput<'Mesh'> {
  return { type: 'Mesh', mesh: '', name, labels: {}, spec: {} };
}

function dataplane(meshName: string, name: string, port = 18080): ResourceInput<'Dataplane'> {
  return { type: 'Dataplane', mesh: meshName, name, labels: {}, spec: dataplaneSpec(port) };
}

/** SPEC §3: an inbound must carry `kuma.io/service`. */
/** Tags that do not name the service: invalid (tags-less inbounds are valid since Kuma 2.14). */
function dataplaneWithoutService(meshName: string, name: string): ResourceInput<'Dataplane'> {
  return {
    ...dataplane(meshName, name),
    spec: { networking: { address: '127.0.0.1', inbound: [{ port: 18080, tags: { version: 'v1' } }] } },
  };
}

/** Kuma's initial policies of a new mesh, in the order they are written. */
function INITIAL_POLICY_KEYS(meshName: string): ResourceKey[] {
  return [
    { type: 'MeshTimeout', mesh: meshName, name: `mesh-gateways-timeout-all-${meshName}` },
    { type: 'MeshTimeout', mesh: meshName, name: `mesh-timeout-all-${meshName}` },
    { type: 'MeshCircuitBreaker', mesh: meshName, name: `mesh-circuit-breaker-all-${meshName}` },
    { type: 'MeshRetry', mesh: meshName, name: `mesh-retry-all-${meshName}` },
  ];
}

function keyOfResource({ type, meta }: Resource): ResourceKey {
  return { type, mesh: meta.mesh, name: meta.name };
}

/** A resource.changed event, plus the version a second connection saw when the event arrived. */
interface ObservedChange {
  change: string;
  key: ResourceKey;
  version: number;
  versionSeenOnceCommitted: number | undefined;
}

let open: () => Db;

/**
 * A manager over `store`, and the events it publishes with the version a reader finds then, only
 * outside a transaction: the database has one connection (store/database.ts), so "committed" is
 * "no transaction open" when the event comes.
 */
function managerOver(store: ResourceStore): { manager: ResourceManager; changes: ObservedChange[] } {
  const events = new EventBus();
  const observer = new ResourceStore(open());
  const changes: ObservedChange[] = [];
  events.subscribe((event: CoreEvent) => {
    if (event.topic !== 'resource.changed') return;
    const versionSeenOnceCommitted = open().inTransaction ? undefined : observer.find(event.key)?.meta.version;
    changes.push({ change: event.change, key: event.key, version: event.version, versionSeenOnceCommitted });
  });
  return { manager: new ResourceManager({ store, events }), changes };
}

beforeEach(() => {
  const db = tempDatabase().open();
  open = () => db;
});

describe('ResourceManager', () => {
  let store: ResourceStore;
  let manager: ResourceManager;
  let changes: ObservedChange[];

  beforeEach(async () => {
    store = new ResourceStore(open());
    ({ manager, changes } = managerOver(store));
    await manager.ensureDefaultMesh();
    changes.length = 0;
  });

  it('creates a Dataplane in an existing mesh and announces it only once committed', async () => {
    const created = await manager.create(dataplane('default', 'backend-1'));

    expect(created.meta.version).toBe(1);
    expect(await manager.get('Dataplane', { mesh: 'default', name: 'backend-1' })).toEqual(created);
    expect(await manager.list('Dataplane', { mesh: 'default' })).toEqual([created]);
    expect(changes).toEqual([
      {
        change: 'created',
        key: keyOf(dataplane('default', 'backend-1')),
        version: 1,
        versionSeenOnceCommitted: 1,
      },
    ]);
  });

  it('reports a missing resource as not found', async () => {
    await expect(manager.get('Dataplane', { mesh: 'default', name: 'ghost' })).rejects.toThrow(ResourceNotFoundError);
  });

  it('refuses a Dataplane whose mesh does not exist, writing and announcing nothing', async () => {
    const before = allResources(store);

    const refused = manager.create(dataplane('demo', 'backend-1'));

    await expect(refused).rejects.toThrow(ResourcePreconditionError);
    await expect(refused).rejects.toThrow('mesh "demo" does not exist');
    await expect(manager.upsert(dataplane('demo', 'backend-1'))).rejects.toThrow('mesh "demo" does not exist');
    expect(allResources(store)).toEqual(before);
    expect(changes).toEqual([]);
  });

  it('refuses invalid input on create, update and upsert, writing and announcing nothing', async () => {
    await manager.create(dataplane('default', 'backend-1'));
    changes.length = 0;
    const before = allResources(store);

    for (const write of [
      () => manager.create(dataplaneWithoutService('default', 'web-1')),
      () => manager.update(dataplaneWithoutService('default', 'backend-1')),
      () => manager.upsert(dataplaneWithoutService('default', 'backend-1')),
      () => manager.upsert(dataplaneWithoutService('default', 'web-1')),
    ]) {
      await expect(write()).rejects.toThrow(ValidationError);
    }
    expect(allResources(store)).toEqual(before);
    expect(changes).toEqual([]);
  });

  it('updates at the stored version and refuses a stale one without a trace', async () => {
    await manager.create(dataplane('default', 'backend-1'));

    const updated = await manager.update({ ...dataplane('default', 'backend-1', 19000), version: 1 });
    const before = allResources(store);
    const stale = manager.update({ ...dataplane('default', 'backend-1', 20000), version: 1 });

    expect(updated.meta.version).toBe(2);
    await expect(stale).rejects.toThrow(ResourceConflictError);
    expect(allResources(store)).toEqual(before);
    expect(changes.map(({ change, version }) => ({ change, version }))).toEqual([
      { change: 'created', version: 1 },
      { change: 'updated', version: 2 },
    ]);
    expect(changes[1]!.versionSeenOnceCommitted).toBe(2);
  });

  it('refuses to delete a mesh that still has dataplanes, naming them', async () => {
    await manager.create(mesh('demo'));
    await manager.create(dataplane('demo', 'web-1'));
    await manager.create(dataplane('demo', 'backend-1', 18081));
    changes.length = 0;
    const before = allResources(store);

    const refused = manager.delete(keyOf(mesh('demo')));

    await expect(refused).rejects.toThrow(ResourcePreconditionError);
    await expect(refused).rejects.toThrow('Mesh "demo": still has 2 dataplanes (backend-1, web-1); delete them first');
    expect(allResources(store)).toEqual(before);
    expect(changes).toEqual([]);
  });

  it('deletes a mesh once its dataplanes are gone and announces each delete once committed', async () => {
    await manager.create(mesh('demo'));
    await manager.create(dataplane('demo', 'backend-1'));
    changes.length = 0;

    await manager.delete(keyOf(dataplane('demo', 'backend-1')));
    await manager.delete(keyOf(mesh('demo')), { version: 1 });

    expect(await manager.list('Mesh')).toEqual([store.get(keyOf(mesh('default')))]);
    // The mesh's policies (its initial ones here) go with it, in the same commit, each announced.
    expect(allResources(store).filter((resource) => resource.meta.mesh === 'demo')).toEqual([]);
    const policyDeletes = INITIAL_POLICY_KEYS('demo').map((key) => ({ change: 'deleted', key, version: 1, versionSeenOnceCommitted: undefined }));
    const byKey = (a: ObservedChange, b: ObservedChange) => JSON.stringify(a.key).localeCompare(JSON.stringify(b.key));
    expect([changes[0], ...changes.slice(1, -1).sort(byKey), changes.at(-1)]).toEqual([
      {
        change: 'deleted',
        key: keyOf(dataplane('demo', 'backend-1')),
        version: 1,
        versionSeenOnceCommitted: undefined,
      },
      ...policyDeletes.sort(byKey),
      { change: 'deleted', key: keyOf(mesh('demo')), version: 1, versionSeenOnceCommitted: undefined },
    ]);
  });

  it("gives a new Mesh Kuma's initial policies in the same commit, with Kuma's names, specs and labels", async () => {
    await manager.create(mesh('demo'));

    const policies = allResources(store).filter((resource) => resource.meta.mesh === 'demo');
    expect(policies.map(keyOfResource)).toEqual(INITIAL_POLICY_KEYS('demo'));
    expect(changes.map(({ key, versionSeenOnceCommitted }) => ({ key, versionSeenOnceCommitted }))).toEqual(
      [keyOf(mesh('demo')), ...INITIAL_POLICY_KEYS('demo')].map((key) => ({ key, versionSeenOnceCommitted: 1 })),
    );
    const timeout = await manager.get('MeshTimeout', { mesh: 'demo', name: 'mesh-timeout-all-demo' });
    expect(timeout.meta.labels).toEqual({ 'kuma.io/mesh': 'demo', 'kuma.io/origin': 'zone', 'kuma.io/zone': 'default', 'kuma.io/env': 'universal' });
    expect(timeout.spec).toEqual({
      targetRef: { kind: 'Mesh', proxyTypes: ['Sidecar'] },
      from: [
        {
          targetRef: { kind: 'Mesh' },
          default: { connectionTimeout: '10s', idleTimeout: '2h0m0s', http: { requestTimeout: '0s', streamIdleTimeout: '1h0m0s', maxStreamDuration: '0s' } },
        },
      ],
      to: [{ targetRef: { kind: 'Mesh' }, default: { connectionTimeout: '5s', idleTimeout: '1h0m0s', http: { requestTimeout: '15s', streamIdleTimeout: '30m0s' } } }],
    });
    expect((await manager.get('MeshRetry', { mesh: 'demo', name: 'mesh-retry-all-demo' })).spec).toEqual({
      targetRef: { kind: 'Mesh' },
      to: [
        {
          targetRef: { kind: 'Mesh' },
          default: {
            tcp: { maxConnectAttempt: 5 },
            http: { numRetries: 5, perTryTimeout: '16s', backOff: { baseInterval: '25ms', maxInterval: '250ms' } },
            grpc: { numRetries: 5, perTryTimeout: '16s', backOff: { baseInterval: '25ms', maxInterval: '250ms' } },
          },
        },
      ],
    });
  });

  it('leaves out the initial policies a Mesh skips: all with "*", else the types it lists', async () => {
    await manager.create({ ...mesh('none'), spec: { skipCreatingInitialPolicies: ['*'] } });
    await manager.create({ ...mesh('some'), spec: { skipCreatingInitialPolicies: ['MeshTimeout', 'MeshRetry'] } });

    expect(allResources(store).filter((resource) => resource.meta.mesh === 'none')).toEqual([]);
    expect(allResources(store).filter((resource) => resource.meta.mesh === 'some').map(keyOfResource)).toEqual([
      { type: 'MeshCircuitBreaker', mesh: 'some', name: 'mesh-circuit-breaker-all-some' },
    ]);
  });

  it('keeps the initial policies a write carries itself (an import of a Mesh with its exported policies)', async () => {
    const own = { type: 'MeshRetry' as const, mesh: 'demo', name: 'mesh-retry-all-demo', labels: {}, spec: { to: [{ targetRef: { kind: 'Mesh' }, default: { tcp: { maxConnectAttempt: 1 } } }] } };
    await manager.writeAll([mesh('demo'), own]);

    expect((await manager.get('MeshRetry', { mesh: 'demo', name: 'mesh-retry-all-demo' })).spec).toEqual(own.spec);
    expect(allResources(store).filter((resource) => resource.meta.mesh === 'demo')).toHaveLength(4);
  });

  it('refuses a policy whose mesh does not exist', async () => {
    const policy = { type: 'MeshTimeout' as const, mesh: 'ghost', name: 'timeouts', labels: {}, spec: { to: [{ targetRef: { kind: 'Mesh' }, default: { idleTimeout: '1s' } }] } };
    await expect(manager.create(policy)).rejects.toThrow('mesh "ghost" does not exist');
  });

  it('refuses a delete with a stale version', async () => {
    await manager.create(dataplane('default', 'backend-1'));
    await manager.update(dataplane('default', 'backend-1', 19000));
    changes.length = 0;

    await expect(manager.delete(keyOf(dataplane('default', 'backend-1')), { version: 1 })).rejects.toThrow(
      ResourceConflictError,
    );
    expect(store.find(keyOf(dataplane('default', 'backend-1')))?.meta.version).toBe(2);
    expect(changes).toEqual([]);
  });

  it('upserts: creates when absent, updates when present', async () => {
    const first = await manager.upsert(dataplane('default', 'backend-1'));
    const second = await manager.upsert(dataplane('default', 'backend-1', 19000));

    expect(first).toMatchObject({ created: true, resource: { meta: { version: 1 } } });
    expect(second).toMatchObject({ created: false, resource: { meta: { version: 2 }, spec: dataplaneSpec(19000) } });
    expect(changes.map(({ change, version }) => ({ change, version }))).toEqual([
      { change: 'created', version: 1 },
      { change: 'updated', version: 2 },
    ]);
  });

  it('ensures the default mesh exists once', async () => {
    await manager.ensureDefaultMesh();

    expect((await manager.list('Mesh')).map((m) => m.meta.name)).toEqual(['default']);
    expect(changes).toEqual([]);
  });
});

describe('ResourceManager.upsert against concurrent writers', () => {
  const target = keyOf(dataplane('default', 'backend-1'));
  let other: ResourceStore;

  beforeEach(async () => {
    const setup = new ResourceStore(open());
    setup.create(mesh('default'));
    other = new ResourceStore(open());
  });

  it('without a version, every one of 100 concurrent writers wins in turn: one creates, the others update, the last write stays', async () => {
    const { manager, changes } = managerOver(new ResourceStore(open()));

    const results = await Promise.all(Array.from({ length: 100 }, (_, index) => manager.upsert(dataplane('default', 'backend-1', 20_000 + index))));

    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(results.map((result) => result.resource.meta.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
    const last = results.find((result) => result.resource.meta.version === 100)!;
    expect(other.get(target)).toEqual(last.resource);
    expect(changes.map((change) => change.change)).toEqual(['created', ...Array<string>(99).fill('updated')]);
  });

  it('without a version, replaces what another writer wrote in between', async () => {
    other.create(dataplane('default', 'backend-1'));
    const { manager } = managerOver(new ResourceStore(open()));
    const pending = manager.upsert(dataplane('default', 'backend-1', 19000));
    other.update(dataplane('default', 'backend-1', 17000)); // before the manager's group commits

    expect(await pending).toMatchObject({ created: false, resource: { meta: { version: 3 }, spec: dataplaneSpec(19000) } });
  });

  it('with a version, updates only that version, and the conflict names the version sent', async () => {
    other.create(dataplane('default', 'backend-1'));
    other.update(dataplane('default', 'backend-1', 17000));
    const { manager, changes } = managerOver(new ResourceStore(open()));

    const refused = manager.upsert({ ...dataplane('default', 'backend-1', 19000), version: 1 });

    await expect(refused).rejects.toThrow(ResourceConflictError);
    await expect(refused).rejects.toThrow('you sent version 1, the stored version is 2');
    expect(other.get(target)).toMatchObject({ meta: { version: 2 }, spec: dataplaneSpec(17000) });
    expect(changes).toEqual([]);
  });

  it('with a version, never creates', async () => {
    const { manager } = managerOver(new ResourceStore(open()));
    await expect(manager.upsert({ ...dataplane('default', 'backend-1'), version: 1 })).rejects.toThrow(ResourceNotFoundError);
  });
});
