import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { StorageFaultError } from '../../src/main/store/errors.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane } from '../support/dataplanes.js';

describe('a stalled disk', () => {
  it('holds up only what needs the disk: ADS answers from memory while the storage thread is blocked', async () => {
    const core = await startTestCore();
    await applyDataplane(core, backendDataplane('backend-1', 18080));
    await applyDataplane(core, clientDataplane('web-1'));
    const proxy = new RawAdsClient(core.xds.port, { id: 'default.web-1' });
    onTestFinished(() => proxy.close());
    proxy.send(CLUSTER_TYPE_URL);
    const clusters = await proxy.next();
    expect(clusters.resources).toHaveLength(1);
    proxy.ack(clusters);

    // The storage worker's thread blocks as in a read or fsync the disk does not answer.
    const stall = core.storage.stall();
    onTestFinished(() => stall.release());
    await stall.holding;
    let written = false;
    const write = applyDataplane(core, backendDataplane('backend-2', 18081)).then(() => (written = true));

    proxy.send(LISTENER_TYPE_URL);
    const listeners = await proxy.next();

    expect(listeners.type_url).toBe(LISTENER_TYPE_URL);
    expect(listeners.resources.length).toBeGreaterThan(0);
    expect(written).toBe(false); // the disk is still stalled: the write waits for it, ADS did not
    stall.release();
    await stall.resumed;
    await write;
    expect((await core.manager.get('Dataplane', { mesh: 'default', name: 'backend-2' })).meta.version).toBe(1);
  });
});

describe('a disk that refuses writes', () => {
  it('fails the write with the fault named, of its class across the thread, and logs the SQLite error behind it', async () => {
    const core = await startTestCore();
    const logged: unknown[][] = [];
    const error = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args));
    onTestFinished(() => error.mockRestore());
    await core.storage.call('faults.readOnly', true);

    const put = await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: JSON.stringify(clientDataplane('web-1')) });
    const refused = await core.manager.create({ type: 'Mesh', mesh: '', name: 'blocked', labels: {}, spec: {} }).catch((thrown: unknown) => thrown);

    expect(put.status).toBe(503);
    expect(await put.json()).toMatchObject({ title: 'Database read-only', details: expect.stringMatching(/^database read-only: .*SQLITE_READONLY/) });
    expect(refused).toBeInstanceOf(StorageFaultError);
    expect(refused).toMatchObject({ kind: 'read-only', cause: expect.objectContaining({ code: 'SQLITE_READONLY' }) });
    expect(logged).toContainEqual([
      expect.stringMatching(/^storage: resources\.create failed: database read-only: meshdesk\.db, its -wal file or their folder cannot be written/),
      { cause: expect.objectContaining({ name: 'SqliteError', code: 'SQLITE_READONLY' }) },
    ]);

    await core.storage.call('faults.readOnly', false);
    await applyDataplane(core, clientDataplane('web-1'));
    expect((await core.manager.get('Dataplane', { mesh: 'default', name: 'web-1' })).meta.version).toBe(1);
  });
});
