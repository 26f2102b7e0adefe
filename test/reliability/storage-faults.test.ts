import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { DATABASE_FILE, startCore, type Core } from '../../src/main/core.js';
import type { StorageStatus } from '../../src/shared/storage-types.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane, deleteDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { startHeadless } from '../support/headless-process.js';
import { tempDir } from '../support/temp-dir.js';

/** A second connection to the core's database, as a sqlite3 shell or a backup tool would open. */
function otherProcess(dataDir: string): Database.Database {
  const other = new Database(join(dataDir, DATABASE_FILE));
  onTestFinished(() => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
  });
  return other;
}

/** Counts event-loop turns with a 1 ms interval: it only ticks while nothing holds the loop. */
function loopTurns(): { readonly count: number } {
  const turns = { count: 0 };
  const timer = setInterval(() => turns.count++, 1);
  onTestFinished(() => clearInterval(timer));
  return turns;
}

describe('another process holding the database', () => {
  it('leaves the API and ADS streams served while a PUT waits for the lock, and the PUT lands once it is released', async () => {
    const dataDir = tempDir();
    const core = await startTestCore(dataDir);
    await applyDataplane(core, clientDataplane('web-1'));
    const proxy = new RawAdsClient(core.xds.port, { id: 'default.web-1' });
    onTestFinished(() => proxy.close());
    proxy.send(CLUSTER_TYPE_URL);
    proxy.ack(await proxy.next());

    const other = otherProcess(dataDir);
    other.exec('BEGIN IMMEDIATE');
    let putDone = false;
    const put = fetch(`${core.api.url}/meshes/default/dataplanes/web-2`, {
      method: 'PUT',
      body: JSON.stringify(clientDataplane('web-2')),
    }).finally(() => (putDone = true));

    const turns = loopTurns();
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`)).status).toBe(200);
    proxy.send(LISTENER_TYPE_URL);
    expect((await proxy.next()).type_url).toBe(LISTENER_TYPE_URL);
    await eventually(() => expect(turns.count).toBeGreaterThanOrEqual(50));
    expect(putDone).toBe(false);

    other.exec('COMMIT');
    expect((await put).status).toBe(201);
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/web-2`)).status).toBe(200);
  });

  it('answers a write it cannot wait for with 503, Retry-After and the cause', async () => {
    const dataDir = tempDir();
    const core = await startTestCore(dataDir);
    const other = otherProcess(dataDir);
    other.exec('BEGIN EXCLUSIVE');

    const response = await fetch(`${core.api.url}/settings`, {
      method: 'PUT',
      body: JSON.stringify({ 'store.cache.expirationTime': '2s' }),
    });

    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({
      title: 'Database locked',
      details: expect.stringMatching(/database locked by another process/),
    });
  });
});

describe('a damaged database at start', () => {
  it('stops the start with the file, the finding and what to do, not a stack trace from the first query', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, DATABASE_FILE);
    writeFileSync(file, Buffer.alloc(8192, 0x41));

    const start = startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    await expect(start).rejects.toThrow(
      `database ${file} is corrupted (file is not a database). Stop meshdesk, then restore the file from a backup`,
    );
    await expect(start).rejects.not.toThrow(/Choose a writable folder/); // another folder is not the fix
  });
});

describe('a broken stored row', () => {
  /** An inbound port each: two Dataplanes of one mesh may not listen on the same address and port. */
  const PORTS = new Map([
    ['torn-1', 18081],
    ['stale-1', 18082],
    ['backend-1', 18080],
  ]);

  /** What an older meshdesk, a hand edit or a stray write may have left: JSON that does not parse, a spec that fails today's rules. */
  function breakRows(dataDir: string): void {
    const other = otherProcess(dataDir);
    const setSpec = other.prepare("UPDATE resources SET spec = ? WHERE type = 'Dataplane' AND mesh = 'default' AND name = ?");
    setSpec.run('{"networking": {"address": "127.0.0.1", "inbound": [{"port": 18081', 'torn-1');
    setSpec.run(JSON.stringify({ networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: { 'kuma.io/service': 'backend' } }] } }), 'stale-1');
  }

  async function storageStatus(core: Core): Promise<StorageStatus> {
    return (await (await fetch(`${core.api.url}/storage`)).json()) as StorageStatus;
  }

  it("costs only its own resource: the mesh's other proxies get config, listings skip it and GET /storage names it", async () => {
    const dataDir = tempDir();
    const core = await startTestCore(dataDir);
    core.settings.update({ 'store.cache.expirationTime': '0s' });
    for (const [name, port] of PORTS) await applyDataplane(core, backendDataplane(name, port));
    await applyDataplane(core, clientDataplane('web-1'));
    breakRows(dataDir);

    const proxy = new RawAdsClient(core.xds.port, { id: 'default.web-1' });
    onTestFinished(() => proxy.close());
    proxy.send(CLUSTER_TYPE_URL);
    expect((await proxy.next()).resources).toHaveLength(1);

    const listed = (await (await fetch(`${core.api.url}/meshes/default/dataplanes`)).json()) as { items: { name: string }[] };
    expect(listed.items.map((item) => item.name)).toEqual(['backend-1', 'web-1']);
    const { brokenRows } = await storageStatus(core);
    expect(brokenRows).toEqual([
      { table: 'resources', key: { type: 'Dataplane', mesh: 'default', name: 'torn-1' }, reason: expect.stringMatching(/stored JSON does not parse/) },
      { table: 'resources', key: { type: 'Dataplane', mesh: 'default', name: 'stale-1' }, reason: expect.stringMatching(/fails validation: .*inbound\[0\]\.port/) },
    ]);
    const read = await fetch(`${core.api.url}/meshes/default/dataplanes/stale-1`);
    expect(read.status).toBe(500);
    expect(await read.json()).toMatchObject({ title: 'Stored resource is unusable', details: expect.stringMatching(/Dataplane "stale-1" in mesh "default" is unusable/) });

    // Replacing or deleting a broken row is how it is fixed.
    await applyDataplane(core, backendDataplane('stale-1', PORTS.get('stale-1')!));
    await deleteDataplane(core, 'default', 'torn-1');
    expect((await storageStatus(core)).brokenRows).toEqual([]);
  });

  it('does not stop a start: start-up logs its key and goes on', async () => {
    const dataDir = tempDir();
    const first = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    for (const name of ['torn-1', 'stale-1']) await applyDataplane(first, backendDataplane(name, PORTS.get(name)!));
    await first.close();
    breakRows(dataDir);
    const warnings: string[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((message: string) => void warnings.push(message));
    onTestFinished(() => warn.mockRestore());

    const core = await startTestCore(dataDir);

    expect(warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/stored row resources \(Dataplane, mesh "default", name "torn-1"\)/)]),
    );
    expect((await storageStatus(core)).brokenRows.map((row) => row.key.name)).toEqual(['torn-1', 'stale-1']);
  });
});

describe('the headless process while another process holds the database', () => {
  it('keeps running and serving config when a connecting proxy cannot have its history written', async () => {
    const dataDir = tempDir();
    const headless = await startHeadless(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    onTestFinished(async () => {
      if (headless.child.exitCode === null) await headless.stop();
    });
    const adsPort = await eventually(() => Number(/ADS \(xDS\) listening on [^\s]+:(\d+)/.exec(headless.output())![1]));
    const put = await fetch(`${headless.apiUrl}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: JSON.stringify(clientDataplane('web-1')) });
    expect(put.status).toBe(201);
    const other = otherProcess(dataDir);
    other.exec('BEGIN IMMEDIATE');

    const proxy = new RawAdsClient(adsPort, { id: 'default.web-1' });
    onTestFinished(() => proxy.close());
    proxy.send(CLUSTER_TYPE_URL);
    proxy.ack(await proxy.next());

    // Its snapshot was published and its history write refused: it waits, and the process lives on.
    const status = await eventually(async () => {
      const answer = (await (await fetch(`${headless.apiUrl}/storage`)).json()) as StorageStatus;
      expect(answer.history).toMatchObject({ failing: true, lastFailure: { kind: 'locked' } });
      return answer;
    });
    expect(status.history.pendingSnapshots).toBeGreaterThanOrEqual(1);
    expect(headless.child.exitCode).toBeNull();

    other.exec('COMMIT');
    await eventually(async () => {
      const answer = (await (await fetch(`${headless.apiUrl}/storage`)).json()) as StorageStatus;
      expect(answer.history).toMatchObject({ failing: false, pendingSnapshots: 0, lostSnapshots: 0 });
    });
    const history = (await (await fetch(`${headless.apiUrl}/meshes/default/dataplanes/web-1/_history`)).json()) as { items: unknown[] };
    expect(history.items).toHaveLength(1);
  });
});
