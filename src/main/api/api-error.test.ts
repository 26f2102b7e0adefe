import Database from 'better-sqlite3';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { EventBus } from '../events/event-bus.js';
import { ResourceManager } from '../manager/resource-manager.js';
import { openDatabase } from '../store/database.js';
import { ResourceStore } from '../store/resource-store.js';
import { toApiError } from './api-error.js';

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the call to fail'),
    (error: unknown) => error,
  );
}

describe('toApiError on storage faults', () => {
  it('answers a write to a database that turned read-only with 503 naming what cannot be written', async () => {
    const db = openDatabase(join(tempDir(), 'meshdesk.db'));
    const manager = new ResourceManager({ store: new ResourceStore(db), events: new EventBus() });
    // A real SQLITE_READONLY, as a disk remounted read-only gives.
    db.pragma('query_only = ON');

    const error = await failureOf(manager.create({ type: 'Mesh', mesh: '', name: 'blocked', labels: {}, spec: {} }));
    db.close();

    expect(toApiError(error)).toMatchObject({
      status: 503,
      title: 'Database read-only',
      message: expect.stringMatching(/^database read-only: meshdesk\.db, its -wal file or their folder cannot be written.*SQLITE_READONLY/),
    });
  });

  it('names any other refusal of SQLite as a database error with its code, not a generic one', () => {
    const db = openDatabase(join(tempDir(), 'meshdesk.db'));
    let error: unknown;
    try {
      db.exec('SELECT * FROM no_such_table');
    } catch (thrown) {
      error = thrown;
    }
    db.close();

    expect(toApiError(error)).toMatchObject({ status: 500, title: 'Database error', message: expect.stringMatching(/meshdesk bug.*SQLITE_ERROR: no such table/) });
  });

  it('answers a write refused by a full disk with 507 saying so', async () => {
    const db = openDatabase(join(tempDir(), 'meshdesk.db'));
    const manager = new ResourceManager({ store: new ResourceStore(db), events: new EventBus() });
    // A real SQLITE_FULL: the file may not grow past the pages it has.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

    const error = await failureOf(
      manager.create({ type: 'Mesh', mesh: '', name: 'big', labels: { padding: 'x'.repeat(100_000) }, spec: {} }),
    );
    db.close();

    expect(toApiError(error)).toMatchObject({
      status: 507,
      title: 'Disk full',
      message: expect.stringMatching(/^disk full: .*free some disk space.*SQLITE_FULL/),
    });
  });

  it('answers a read of a damaged database with 500 saying it is corrupted, not a generic error', () => {
    const file = join(tempDir(), 'meshdesk.db');
    const db = openDatabase(file);
    const store = new ResourceStore(db);
    store.transaction(() => {
      for (let index = 0; index < 300; index++) store.create({ type: 'Mesh', mesh: '', name: `m-${index}`, labels: { pad: 'x'.repeat(200) }, spec: {} });
    });
    db.pragma('wal_checkpoint(TRUNCATE)');
    // Garbage over the table's pages while meshdesk runs, as a failing disk would write.
    const fd = openSync(file, 'r+');
    for (let page = 2; page < 20; page++) writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, page * 4096);
    closeSync(fd);

    db.close();
    // A plain connection (openDatabase's start-up check would refuse the file): its read meets the damage, as a running core's would.
    const reader = new Database(file);
    let error: unknown;
    try {
      new ResourceStore(reader).list('Mesh');
    } catch (caught) {
      error = caught;
    }
    reader.close();

    expect(toApiError(error)).toMatchObject({
      status: 500,
      title: 'Database corrupted',
      message: expect.stringMatching(/^database corrupted: stop meshdesk.*SQLITE_CORRUPT/),
    });
  });
});
