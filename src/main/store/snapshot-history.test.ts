import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './database.js';
import Database from 'better-sqlite3';
import { migrate, SCHEMA_VERSION } from './migrations.js';
import { eventually } from '../../../test/support/eventually.js';
import { tempDatabase, type TempDatabase } from '../../../test/support/temp-database.js';
import { statSync } from 'node:fs';
import { MAX_PENDING_SNAPSHOTS, SNAPSHOTS_KEPT_PER_PROXY, SnapshotHistory, type NewSnapshotRecord } from './snapshot-history.js';

const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const LDS = 'type.googleapis.com/envoy.config.listener.v3.Listener';

function snapshot(proxyId: string, version: string, createdAt = 1_700_000_000_000.5): NewSnapshotRecord {
  return {
    proxyId,
    createdAt,
    versions: { [CDS]: version, [LDS]: 'l1' },
    changedTypes: [CDS],
    policyChanges: [],
    resources: {
      [CDS]: [{ name: 'backend', resource: { name: 'backend', type: 'EDS', connect_timeout: '5s' } }],
      [LDS]: [],
    },
  };
}

let database: TempDatabase;
let db: Db;
let history: SnapshotHistory;

beforeEach(() => {
  database = tempDatabase();
  db = database.open();
  history = new SnapshotHistory(db);
});

describe('SnapshotHistory', () => {
  it('is created by a migration appended after the first', () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  });

  it('returns a recorded snapshot in full, resources as the generator JSON', () => {
    const { id } = history.record(snapshot('default.web-1', 'c1'));

    expect(history.get(id)).toEqual({ id, number: 1, ...snapshot('default.web-1', 'c1') });
    expect(history.latest('default.web-1')).toEqual(history.get(id));
  });

  it('lists metadata only, newest first, per proxy', () => {
    const first = history.record(snapshot('default.web-1', 'c1'));
    const second = history.record(snapshot('default.web-1', 'c2'));
    history.record(snapshot('default.backend-1', 'b1'));

    const listed = history.list('default.web-1');

    expect(listed.map((summary) => summary.id)).toEqual([second.id, first.id]);
    expect(listed[0]).toEqual({
      id: second.id,
      number: 2,
      proxyId: 'default.web-1',
      createdAt: 1_700_000_000_000.5,
      versions: { [CDS]: 'c2', [LDS]: 'l1' },
      changedTypes: [CDS],
      policyChanges: [],
    });
    expect(listed[0]).not.toHaveProperty('resources');
  });

  it("numbers each proxy's snapshots from 1, on after its oldest are pruned", () => {
    history.record(snapshot('default.backend-1', 'b1'));
    history.record(snapshot('default.backend-1', 'b2'));
    const numbers = Array.from({ length: SNAPSHOTS_KEPT_PER_PROXY + 2 }, (_, i) => history.record(snapshot('default.web-1', `c${i}`)).number);

    expect(numbers.slice(0, 3)).toEqual([1, 2, 3]);
    expect(history.list('default.web-1').map((summary) => summary.number).slice(0, 2)).toEqual([SNAPSHOTS_KEPT_PER_PROXY + 2, SNAPSHOTS_KEPT_PER_PROXY + 1]);
    expect(history.list('default.web-1').at(-1)!.number).toBe(3);
  });

  it(`keeps only the last ${SNAPSHOTS_KEPT_PER_PROXY} snapshots of a proxy, pruning on insert`, () => {
    const ids = Array.from({ length: SNAPSHOTS_KEPT_PER_PROXY + 5 }, (_, i) => history.record(snapshot('default.web-1', `c${i}`)).id);
    const other = history.record(snapshot('default.backend-1', 'b1'));

    const kept = history.list('default.web-1').map((summary) => summary.id);

    expect(kept).toEqual(ids.slice(5).reverse());
    expect(history.get(ids[4]!)).toBeUndefined();
    expect(history.latest('default.web-1')!.versions[CDS]).toBe(`c${SNAPSHOTS_KEPT_PER_PROXY + 4}`);
    expect(history.get(other.id)).toBeDefined();
  });

  it('never reuses the id of a pruned snapshot', () => {
    const ids = Array.from({ length: SNAPSHOTS_KEPT_PER_PROXY + 1 }, () => history.record(snapshot('default.web-1', 'c')).id);
    history.deleteProxy('default.web-1');

    const next = history.record(snapshot('default.web-1', 'c')).id;

    expect(next).toBeGreaterThan(Math.max(...ids));
  });

  it('forgets every snapshot of a deleted proxy and nothing else', () => {
    history.record(snapshot('default.web-1', 'c1'));
    history.record(snapshot('default.web-1', 'c2'));
    history.record(snapshot('default.backend-1', 'b1'));

    history.deleteProxy('default.web-1');
    expect(history.list('default.web-1')).toEqual([]);
    expect(history.latest('default.web-1')).toBeUndefined();
    expect(history.list('default.backend-1')).toHaveLength(1);
  });

  it('answers undefined for an unknown id or proxy', () => {
    expect(history.get(12345)).toBeUndefined();
    expect(history.latest('default.nobody')).toBeUndefined();
    expect(history.list('default.nobody')).toEqual([]);
  });

  it('keeps its snapshots across a reopen of the database', () => {
    const { id } = history.record(snapshot('default.web-1', 'c1'));
    db.close();
    db = database.open();

    expect(new SnapshotHistory(db).get(id)?.versions[CDS]).toBe('c1');
  });

  it('writes what recordSoon queued once the turn ends, in one go, and a read before that sees it already', async () => {
    history.recordSoon(snapshot('default.web-1', 'c1'));
    history.recordSoon(snapshot('default.web-1', 'c2'));

    expect(history.list('default.web-1').map((summary) => summary.versions[CDS])).toEqual(['c2', 'c1']);

    history.recordSoon(snapshot('default.web-1', 'c3'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(db.prepare('SELECT count(*) AS count FROM snapshot_history').get()).toEqual({ count: 3 });
  });

  it('keeps each distinct content once, however many snapshots and proxies repeat it, until the last one naming it goes', () => {
    const payloads = () => db.prepare('SELECT type_url, version FROM snapshot_payloads ORDER BY type_url, version').all();
    history.record(snapshot('default.web-1', 'c1'));
    history.record(snapshot('default.web-2', 'c1'));
    history.record(snapshot('default.web-1', 'c2'));

    expect(payloads()).toEqual([
      { type_url: CDS, version: 'c1' },
      { type_url: CDS, version: 'c2' },
      { type_url: LDS, version: 'l1' },
    ]);
    expect(history.latest('default.web-2')!.resources).toEqual(snapshot('default.web-2', 'c1').resources);

    history.deleteProxy('default.web-2');
    expect(payloads()).toHaveLength(3); // web-1's first snapshot still names c1
    for (let i = 0; i < SNAPSHOTS_KEPT_PER_PROXY; i++) history.record(snapshot('default.web-1', 'c2'));
    expect(payloads()).toEqual([
      { type_url: CDS, version: 'c2' },
      { type_url: LDS, version: 'l1' },
    ]);
    history.deleteProxy('default.web-1');
    expect(payloads()).toEqual([]);
  });
});

describe('SnapshotHistory when the database refuses writes', () => {
  /** A snapshot whose content needs new pages in the file: a full disk refuses it. */
  function bigSnapshot(proxyId: string, version: string): NewSnapshotRecord {
    const record = snapshot(proxyId, version);
    return { ...record, resources: { ...record.resources, [CDS]: [{ name: 'big', resource: { padding: 'x'.repeat(200_000) } }] } };
  }

  function versionsOf(proxyId: string): string[] {
    return history.list(proxyId).map((summary) => summary.versions[CDS]!);
  }

  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it('counts what a full disk loses, never throws to the publisher, and writes again once there is room', async () => {
    const lost: [number, string][] = [];
    history = new SnapshotHistory(db, { onLost: (count, kind) => lost.push([count, kind]) });
    history.record(snapshot('default.web-1', 'c0'));
    const pages = db.pragma('page_count', { simple: true }) as number;
    // A real SQLITE_FULL: the file may not grow past the pages it has.
    db.pragma(`max_page_count = ${pages}`);

    // One batch: a snapshot that needs no new page (counted while it is written), then two that do.
    history.recordSoon(snapshot('default.web-3', 'c0'));
    history.recordSoon(bigSnapshot('default.web-1', 'c1'));
    history.recordSoon(bigSnapshot('default.web-2', 'w1'));
    await turn();

    expect(history.writeStatus()).toMatchObject({ lostSnapshots: 3, pendingSnapshots: 0, failing: true, lastFailure: { kind: 'disk-full' } });
    expect(history.writeStatus().lastFailure!.message).toMatch(/disk full.*SQLITE_FULL/);
    expect(lost).toEqual([[3, 'disk-full']]);
    expect(versionsOf('default.web-1')).toEqual(['c0']);
    // The rolled-back writes count for nothing: the same as a history that reads the rows afresh.
    expect(history.storedBytes()).toBe(new SnapshotHistory(db).storedBytes());
    expect(history.storedBytes('default.web-3')).toBe(0);

    db.pragma(`max_page_count = ${pages * 100}`);
    history.recordSoon(bigSnapshot('default.web-1', 'c2'));
    await eventually(() => expect(versionsOf('default.web-1')).toEqual(['c2', 'c0']));
    expect(history.writeStatus()).toMatchObject({ lostSnapshots: 3, pendingSnapshots: 0, failing: false });
  });

  it(`holds at most ${MAX_PENDING_SNAPSHOTS} snapshots while writes pause after a failure, counting the oldest it drops`, async () => {
    history.record(snapshot('default.web-1', 'c0'));
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    history.recordSoon(bigSnapshot('default.web-1', 'first'));
    await turn();
    expect(history.writeStatus()).toMatchObject({ lostSnapshots: 1, pendingSnapshots: 0, failing: true });

    for (let index = 0; index < MAX_PENDING_SNAPSHOTS + 4; index++) history.recordSoon(snapshot('default.web-1', `c${index}`));

    expect(history.writeStatus()).toMatchObject({ lostSnapshots: 5, pendingSnapshots: MAX_PENDING_SNAPSHOTS });
  });
});

describe('SnapshotHistory bounded in bytes', () => {
  const KB = 1024;

  /** A snapshot whose cluster list is about `kilobytes` KB of content no other snapshot has. */
  function sized(proxyId: string, version: string, kilobytes: number): NewSnapshotRecord {
    const record = snapshot(proxyId, version);
    const padding = version.padEnd(kilobytes * KB, '.');
    return { ...record, versions: { [CDS]: version }, resources: { [CDS]: [{ name: 'big', resource: { padding } }] } };
  }

  const versionsOf = (proxyId: string) => history.list(proxyId).map((summary) => summary.versions[CDS]);

  it("keeps a proxy's newest snapshots while they fit its bound, and its latest even when that alone does not", () => {
    history = new SnapshotHistory(db, { maxBytesPerProxy: 100 * KB });
    for (let index = 0; index < 20; index++) history.record(sized('default.web-1', `c${index}`, 30));

    expect(versionsOf('default.web-1')).toEqual(['c19', 'c18', 'c17']);
    expect(history.storedBytes('default.web-1')).toBeLessThanOrEqual(100 * KB);

    history.record(sized('default.web-1', 'huge', 150));
    expect(versionsOf('default.web-1')).toEqual(['huge']);
    // Only the kept snapshots' payloads stay.
    expect(db.prepare('SELECT count(*) FROM snapshot_payloads').pluck().get()).toBe(1);
  });

  it("keeps the whole history within its bound, the oldest of any proxy going first and never a proxy's latest", () => {
    history = new SnapshotHistory(db, { maxBytes: 200 * KB });
    for (let round = 0; round < 4; round++) {
      for (const proxy of ['a', 'b', 'c', 'd', 'e']) history.recordSoon(sized(`default.${proxy}`, `${proxy}${round}`, 30));
    }
    history.flush();

    expect(history.storedBytes()).toBeLessThanOrEqual(200 * KB);
    expect(history.writeStatus()).toMatchObject({ storedBytes: history.storedBytes(), maxBytes: 200 * KB });
    for (const proxy of ['a', 'b', 'c', 'd', 'e']) expect(versionsOf(`default.${proxy}`)[0]).toBe(`${proxy}3`);
    // The counts are the rows': a new history on the same file finds the same.
    expect(new SnapshotHistory(db).storedBytes()).toBe(history.storedBytes());
  });

  it('gives the space of pruned snapshots back: the file shrinks after a storm', () => {
    const fileBytes = () => {
      db.pragma('wal_checkpoint(TRUNCATE)');
      return statSync(database.file).size + statSync(`${database.file}-wal`).size;
    };
    const empty = fileBytes();
    for (let index = 0; index < 20; index++) history.record(sized('default.web-1', `c${index}`, 500));
    expect(fileBytes()).toBeGreaterThan(empty + 8_000 * KB);

    history.deleteProxy('default.web-1');
    history.record(sized('default.web-2', 'small', 1));

    expect(fileBytes()).toBeLessThan(empty + 1_000 * KB);
  });
});

describe('the migration to content-addressed history', () => {
  it('moves the snapshots written before it, resources included', () => {
    const file = path.join(database.dir, 'schema-3.db');
    const old = new Database(file);
    // Schema 3 as shipped, with two snapshots of one proxy sharing their LDS.
    old.pragma('foreign_keys = ON');
    migrate(old, 3);
    const insert = old.prepare('INSERT INTO snapshot_history (proxy_id, created_at, versions, changed_types, resources) VALUES (?, ?, ?, ?, ?)');
    for (const record of [snapshot('default.web-1', 'c1', 1), snapshot('default.web-1', 'c2', 2)]) {
      insert.run(record.proxyId, record.createdAt, JSON.stringify(record.versions), JSON.stringify(record.changedTypes), JSON.stringify(record.resources));
    }
    old.close();

    const migrated = openDatabase(file);
    try {
      const moved = new SnapshotHistory(migrated);
      const [second, first] = moved.list('default.web-1');
      expect(moved.get(first!.id)).toEqual({ id: first!.id, number: 1, ...snapshot('default.web-1', 'c1', 1) });
      expect(moved.get(second!.id)).toEqual({ id: second!.id, number: 2, ...snapshot('default.web-1', 'c2', 2) });
      expect(migrated.prepare('SELECT count(*) FROM snapshot_payloads').pluck().get()).toBe(3);
      // Sizes filled in by a later migration, and the file rebuilt to give freed space back.
      const payloadBytes = (version: string) => Buffer.byteLength(JSON.stringify(snapshot('default.web-1', version).resources[CDS]));
      const lds = Buffer.byteLength(JSON.stringify(snapshot('default.web-1', 'c1').resources[LDS]));
      expect(migrated.prepare('SELECT bytes FROM snapshot_history ORDER BY id').pluck().all()).toEqual([payloadBytes('c1') + lds, payloadBytes('c2') + lds]);
      expect(moved.storedBytes('default.web-1')).toBe(payloadBytes('c1') + payloadBytes('c2') + 2 * lds);
      expect(migrated.pragma('auto_vacuum', { simple: true })).toBe(2);
    } finally {
      migrated.close();
    }
  });
});

