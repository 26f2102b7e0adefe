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

interface PayloadKey {
  type_url: string;
  version: string;
}

const SUMMARY_COLUMNS = 'id, proxy_id, created_at, versions, changed_types';

/**
 * Every snapshot published to each proxy, newest kept, so a user can see what a proxy got and
 * when, and diff two versions. Stored by content: a type's version is a hash of its resources, so
 * each distinct (type, version) is written once, however many snapshots and proxies repeat it, and
 * goes when the last snapshot naming it is pruned. Writing a snapshot therefore costs one row, a
 * row per type, and JSON only for content never seen before: it runs on every published
 * snapshot, inside a sync tick.
 */
export class SnapshotHistory {
  readonly #insert: Statement<[Omit<SummaryRow, 'id'>], { id: number }>;
  readonly #insertType: Statement<[PayloadKey & { snapshot_id: number }]>;
  readonly #payloadExists: Statement<[PayloadKey], number>;
  readonly #insertPayload: Statement<[PayloadKey & { resources: string }]>;
  readonly #typesOfPruned: Statement<[{ proxy_id: string; keep: number }], PayloadKey>;
  readonly #prune: Statement<[{ proxy_id: string; keep: number }]>;
  readonly #deletePayloadIfUnused: Statement<[PayloadKey]>;
  readonly #list: Statement<[string], SummaryRow>;
  readonly #get: Statement<[number], SummaryRow>;
  readonly #latest: Statement<[string], SummaryRow>;
  readonly #payloadsOf: Statement<[number], { type_url: string; resources: string }>;
  readonly #recordInTransaction: (snapshot: NewSnapshotRecord) => number;
  readonly #pruneInTransaction: (proxyId: string, keep: number) => number;
  readonly #db: Db;
  /** Snapshots `recordSoon` queued, written together by the next flush. */
  #queued: NewSnapshotRecord[] = [];
  #flushScheduled = false;

  constructor(db: Db) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO snapshot_history (proxy_id, created_at, versions, changed_types)
       VALUES (@proxy_id, @created_at, @versions, @changed_types) RETURNING id`,
    );
    this.#insertType = db.prepare('INSERT INTO snapshot_types (snapshot_id, type_url, version) VALUES (@snapshot_id, @type_url, @version)');
    this.#payloadExists = db
      .prepare<[PayloadKey], number>('SELECT 1 FROM snapshot_payloads WHERE type_url = @type_url AND version = @version')
      .pluck();
    this.#insertPayload = db.prepare('INSERT INTO snapshot_payloads (type_url, version, resources) VALUES (@type_url, @version, @resources)');
    // Everything at or below the (keep+1)-th newest id goes; with fewer rows the subquery is NULL and nothing does.
    const pruned = `proxy_id = @proxy_id AND id <= (
      SELECT id FROM snapshot_history WHERE proxy_id = @proxy_id ORDER BY id DESC LIMIT 1 OFFSET @keep)`;
    this.#typesOfPruned = db.prepare(
      `SELECT DISTINCT type_url, version FROM snapshot_types
       WHERE snapshot_id IN (SELECT id FROM snapshot_history WHERE ${pruned})`,
    );
    this.#prune = db.prepare(`DELETE FROM snapshot_history WHERE ${pruned}`);
    this.#deletePayloadIfUnused = db.prepare(
      `DELETE FROM snapshot_payloads WHERE type_url = @type_url AND version = @version
       AND NOT EXISTS (SELECT 1 FROM snapshot_types WHERE type_url = @type_url AND version = @version)`,
    );
    this.#list = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC`);
    this.#get = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE id = ?`);
    this.#latest = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC LIMIT 1`);
    this.#payloadsOf = db.prepare(
      `SELECT type_url, resources FROM snapshot_types JOIN snapshot_payloads USING (type_url, version) WHERE snapshot_id = ?`,
    );
    this.#recordInTransaction = db.transaction((snapshot: NewSnapshotRecord) => {
      const { id } = this.#insert.get({
        proxy_id: snapshot.proxyId,
        created_at: snapshot.createdAt,
        versions: JSON.stringify(snapshot.versions),
        changed_types: JSON.stringify(snapshot.changedTypes),
      })!;
      for (const [type_url, version] of Object.entries(snapshot.versions)) {
        const key = { type_url, version };
        if (this.#payloadExists.get(key) === undefined) {
          this.#insertPayload.run({ ...key, resources: JSON.stringify(snapshot.resources[type_url] ?? []) });
        }
        this.#insertType.run({ ...key, snapshot_id: id });
      }
      this.#pruneInTransaction(snapshot.proxyId, SNAPSHOTS_KEPT_PER_PROXY);
      return id;
    });
    this.#pruneInTransaction = db.transaction((proxyId: string, keep: number) => {
      const params = { proxy_id: proxyId, keep };
      const candidates = this.#typesOfPruned.all(params);
      const { changes } = this.#prune.run(params);
      for (const key of candidates) this.#deletePayloadIfUnused.run(key);
      return changes;
    });
  }

  /** Records a published snapshot and prunes the proxy's oldest beyond SNAPSHOTS_KEPT_PER_PROXY. */
  record(snapshot: NewSnapshotRecord): SnapshotSummary {
    const id = this.#recordInTransaction(snapshot);
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
    return this.#withResources(this.#get.get(id));
  }

  latest(proxyId: string): SnapshotRecord | undefined {
    this.flush();
    return this.#withResources(this.#latest.get(proxyId));
  }

  /** Forgets a proxy's history, once its Dataplane is gone for good. Returns how many snapshots went. */
  deleteProxy(proxyId: string): number {
    this.flush();
    return this.#pruneInTransaction(proxyId, 0);
  }

  #withResources(row: SummaryRow | undefined): SnapshotRecord | undefined {
    if (!row) return undefined;
    const resources: Record<string, SnapshotResourcesJson[string]> = {};
    for (const { type_url, resources: json } of this.#payloadsOf.all(row.id)) resources[type_url] = JSON.parse(json);
    return { ...toSummary(row), resources };
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
