import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { DATABASE_FILE, startCore, type Core } from '../../src/main/core.js';
import type { StorageStatus } from '../../src/shared/storage-types.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane, deleteDataplane } from '../support/dataplanes.js';
import { tempDir } from '../support/temp-dir.js';

/** A connection of another program (a sqlite3 shell, a backup tool) to the data directory's database. */
function otherProgram(dataDir: string): Database.Database {
  const other = new Database(join(dataDir, DATABASE_FILE));
  onTestFinished(() => void other.close());
  return other;
}

describe('another program and a running core', () => {
  it('cannot lock, read or write the database, so it can neither stall the core nor change rows under it', async () => {
    const dataDir = tempDir();
    const core = await startTestCore(dataDir);
    const other = otherProgram(dataDir);

    expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(/database is locked/);
    expect(() => other.prepare('SELECT count(*) FROM resources').get()).toThrow(/database is locked/);
    expect(() => other.prepare("DELETE FROM resources WHERE type = 'Mesh'").run()).toThrow(/database is locked/);

    const put = await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: JSON.stringify(clientDataplane('web-1')) });
    expect(put.status).toBe(201);
    expect((await core.manager.list('Mesh')).map((mesh) => mesh.meta.name)).toEqual(['default']);
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

  /**
   * What an older meshdesk, a hand edit or a stray write may have left while meshdesk was stopped:
   * JSON that does not parse, a spec that fails today's rules.
   */
  function breakRows(dataDir: string): void {
    const other = new Database(join(dataDir, DATABASE_FILE));
    try {
      const setSpec = other.prepare("UPDATE resources SET spec = ? WHERE type = 'Dataplane' AND mesh = 'default' AND name = ?");
      setSpec.run('{"networking": {"address": "127.0.0.1", "inbound": [{"port": 18081', 'torn-1');
      setSpec.run(JSON.stringify({ networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: { 'kuma.io/service': 'backend' } }] } }), 'stale-1');
    } finally {
      other.close();
    }
  }

  async function storageStatus(core: Core): Promise<StorageStatus> {
    return (await (await fetch(`${core.api.url}/storage`)).json()) as StorageStatus;
  }

  it("costs only its own resource: the mesh's other proxies get config, listings skip it and GET /storage names it", async () => {
    const dataDir = tempDir();
    const first = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    first.settings.update({ 'store.cache.expirationTime': '0s' });
    for (const [name, port] of PORTS) await applyDataplane(first, backendDataplane(name, port));
    await applyDataplane(first, clientDataplane('web-1'));
    await first.close();
    breakRows(dataDir);
    const core = await startTestCore(dataDir);

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
