import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { onScopeFinished } from '../../../../test/support/test-scope.js';
import { EventBus, type CoreEvent } from '../../events/event-bus.js';
import { ValidationError } from '../../resources/validation-error.js';
import { DatabaseInUseError, ResourceConflictError, ResourceNotFoundError } from '../errors.js';
import { RemoteResourceManager } from './remote-resource-manager.js';
import { RemoteSnapshotHistory } from './remote-snapshot-history.js';
import { StorageClient } from './storage-client.js';

async function startStorage(file = join(tempDir(), 'meshdesk.db')): Promise<StorageClient> {
  const storage = await StorageClient.start(file);
  onScopeFinished(() => storage.close());
  return storage;
}

const mesh = (name: string, version?: number) => ({ type: 'Mesh' as const, mesh: '', name, labels: {}, spec: {}, ...(version && { version }) });

describe('StorageClient', () => {
  it('brings the errors of the worker back of their class, with their fields', async () => {
    const manager = new RemoteResourceManager(await startStorage(), new EventBus());
    await manager.create(mesh('payments'));

    const notFound = await manager.get('Mesh', { mesh: '', name: 'nope' }).catch((error: unknown) => error);
    const conflict = await manager.update(mesh('payments', 7)).catch((error: unknown) => error);
    const invalid = await manager.create(mesh('Not A Name')).catch((error: unknown) => error);

    expect(notFound).toBeInstanceOf(ResourceNotFoundError);
    expect(notFound).toMatchObject({ key: { type: 'Mesh', name: 'nope' }, message: 'Mesh "nope" not found' });
    expect(conflict).toBeInstanceOf(ResourceConflictError);
    expect(conflict).toMatchObject({ expectedVersion: 7, actualVersion: 1 });
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).violations).toEqual([expect.objectContaining({ field: 'name' })]);
  });

  it("publishes a write's events on this thread before the write returns", async () => {
    const events = new EventBus();
    const heard: CoreEvent[] = [];
    events.subscribe((event) => heard.push(event));
    const manager = new RemoteResourceManager(await startStorage(), events);

    await manager.create(mesh('payments'));

    expect(heard).toContainEqual({ topic: 'resource.changed', change: 'created', key: { type: 'Mesh', mesh: '', name: 'payments' }, version: 1 });
  });

  it('judges an upsert precondition on the stored resource and writes the version it judged', async () => {
    const manager = new RemoteResourceManager(await startStorage(), new EventBus());
    const judged: (number | undefined)[] = [];
    const precondition = (current: { meta: { version: number } } | undefined) => void judged.push(current?.meta.version);

    expect((await manager.upsert(mesh('payments'), { precondition })).created).toBe(true);
    expect((await manager.upsert(mesh('payments'), { precondition })).resource.meta.version).toBe(2);
    await expect(
      manager.upsert(mesh('payments'), {
        precondition: () => {
          throw new Error('refused');
        },
      }),
    ).rejects.toThrow('refused');

    expect(judged).toEqual([undefined, 1]);
    expect((await manager.get('Mesh', { mesh: '', name: 'payments' })).meta.version).toBe(2);
  });

  it('answers a read after every snapshot handed over before it', async () => {
    const history = new RemoteSnapshotHistory(await startStorage());
    history.recordSoon({ proxyId: 'default.web-1', createdAt: 1, versions: { lds: 'v1' }, changedTypes: ['lds'], resources: { lds: [] } });

    expect((await history.list('default.web-1')).map((snapshot) => snapshot.versions)).toEqual([{ lds: 'v1' }]);
  });

  it('holds the database alone until closed, then frees it', async () => {
    const file = join(tempDir(), 'meshdesk.db');
    const first = await StorageClient.start(file);

    await expect(StorageClient.start(file)).rejects.toBeInstanceOf(DatabaseInUseError);
    await first.close();
    await expect(first.call('resources.list', 'Mesh', {})).rejects.toThrow('the storage is closed');
    expect((await (await startStorage(file)).call('resources.list', 'Mesh', {})).map((stored) => stored.meta.name)).toEqual([]);
  });
});
