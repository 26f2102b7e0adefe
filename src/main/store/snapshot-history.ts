import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import type { SnapshotRecord, SnapshotResourcesJson, SnapshotSummary } from '../../shared/api-types.js';

export type { SnapshotRecord, SnapshotResourcesJson, SnapshotSummary };

/** Queued snapshots written per transaction: a storm queues thousands, and one transaction holds the event loop. */
const WRITES_PER_FLUSH = 100;

/** Snapshots kept per proxy; older ones are pruned by the insert that goes past this. */
export const SNAPSHOTS_KEPT_PER_PROXY = 50;

/** What a published snapshot is recorded with. */
export interface NewSnapshotRecord {
  proxyId: string;
  /** Epoch milliseconds, on the same clock as the proxy timeline, so a snapshot lines up with its tick. */
  createdAt: number;
  /** Content version per type URL. */
  versions: Readonly<Record<string, string>>;
  /** Type URLs whose version differs from the snapshot this one replaced. */
  changedTypes: readonly string[];
  resources: SnapshotResourcesJson;
}

interface SummaryRow {
  id: number;
  proxy_id: string;
  created_at: number;
  versions: string;
  changed_types: string;
}

interface RecordRow extends SummaryRow {
  resources: string;
}

const SUMMARY_COLUMNS = 'id, proxy_id, created_at, versions, changed_types';

/**
 * Every snapshot published to each proxy, newest kept, so a user can see what a proxy got and
 * when, and diff two versions. A write is one prepared insert plus one prune in one transaction:
 * it runs on every published snapshot, inside a sync tick.
 */
export class SnapshotHistory {
  readonly #insert: Statement<[Omit<RecordRow, 'id'>], { id: number }>;
  readonly #prune: Statement<[{ proxy_id: string; keep: number }]>;
  readonly #list: Statement<[string], SummaryRow>;
  readonly #get: Statement<[number], RecordRow>;
  readonly #latest: Statement<[string], RecordRow>;
  readonly #deleteProxy: Statement<[string]>;
  readonly #recordInTransaction: (row: Omit<RecordRow, 'id'>) => number;
  readonly #db: Db;
  /** Snapshots `recordSoon` queued, written together by the next flush. */
  #queued: NewSnapshotRecord[] = [];
  #flushScheduled = false;

  constructor(db: Db) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO snapshot_history (proxy_id, created_at, versions, changed_types, resources)
       VALUES (@proxy_id, @created_at, @versions, @changed_types, @resources) RETURNING id`,
    );
    // Everything at or below the (keep+1)-th newest id goes; with fewer rows the subquery is NULL and nothing does.
    this.#prune = db.prepare(
      `DELETE FROM snapshot_history WHERE proxy_id = @proxy_id AND id <= (
         SELECT id FROM snapshot_history WHERE proxy_id = @proxy_id ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
    );
    this.#list = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC`);
    this.#get = db.prepare('SELECT * FROM snapshot_history WHERE id = ?');
    this.#latest = db.prepare('SELECT * FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC LIMIT 1');
    this.#deleteProxy = db.prepare('DELETE FROM snapshot_history WHERE proxy_id = ?');
    this.#recordInTransaction = db.transaction((row: Omit<RecordRow, 'id'>) => {
      const { id } = this.#insert.get(row)!;
      this.#prune.run({ proxy_id: row.proxy_id, keep: SNAPSHOTS_KEPT_PER_PROXY });
      return id;
    });
  }

  /** Records a published snapshot and prunes the proxy's oldest beyond SNAPSHOTS_KEPT_PER_PROXY. */
  record(snapshot: NewSnapshotRecord): SnapshotSummary {
    const id = this.#recordInTransaction({
      proxy_id: snapshot.proxyId,
      created_at: snapshot.createdAt,
      versions: JSON.stringify(snapshot.versions),
      changed_types: JSON.stringify(snapshot.changedTypes),
      resources: JSON.stringify(snapshot.resources),
    });
    return {
      id,
      proxyId: snapshot.proxyId,
      createdAt: snapshot.createdAt,
      versions: { ...snapshot.versions },
      changedTypes: [...snapshot.changedTypes],
    };
  }

  /**
   * Queues a snapshot and writes the queued ones together, up to WRITES_PER_FLUSH per transaction
   * and event-loop turn, once the current turn ends: with `synchronous = FULL` a transaction costs
   * an fsync, and a change of a service's endpoints publishes to every proxy using it at once.
   * Reads flush first, so nobody ever sees the history without a snapshot already published.
   */
  recordSoon(snapshot: NewSnapshotRecord): void {
    this.#queued.push(snapshot);
    this.#scheduleFlush();
  }

  /** Writes whatever `recordSoon` queued, nothing once the database is closed; `limit` leaves the rest for a later turn. */
  flush(limit = Number.POSITIVE_INFINITY): void {
    const batch = this.#queued.splice(0, limit);
    if (batch.length === 0 || !this.#db.open) return;
    this.#db.transaction(() => batch.forEach((snapshot) => this.record(snapshot)))();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      this.flush(WRITES_PER_FLUSH);
      if (this.#queued.length > 0) this.#scheduleFlush();
    });
  }

  /** The proxy's snapshots, newest first, without their resources. */
  list(proxyId: string): SnapshotSummary[] {
    this.flush();
    return this.#list.all(proxyId).map(toSummary);
  }

  get(id: number): SnapshotRecord | undefined {
    this.flush();
    const row = this.#get.get(id);
    return row && toRecord(row);
  }

  latest(proxyId: string): SnapshotRecord | undefined {
    this.flush();
    const row = this.#latest.get(proxyId);
    return row && toRecord(row);
  }

  /** Forgets a proxy's history, once its Dataplane is gone for good. Returns how many snapshots went. */
  deleteProxy(proxyId: string): number {
    this.flush();
    return this.#deleteProxy.run(proxyId).changes;
  }
}

function toSummary(row: SummaryRow): SnapshotSummary {
  return {
    id: row.id,
    proxyId: row.proxy_id,
    createdAt: row.created_at,
    versions: JSON.parse(row.versions) as Record<string, string>,
    changedTypes: JSON.parse(row.changed_types) as string[],
  };
}

function toRecord(row: RecordRow): SnapshotRecord {
  return { ...toSummary(row), resources: JSON.parse(row.resources) as SnapshotResourcesJson };
}
