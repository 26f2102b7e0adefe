import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DATABASE_FILE, startCore } from '../../src/main/core.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, clientDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
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
