import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import type { SnapshotRecord, SnapshotResourcesJson, SnapshotSummary } from '../../shared/api-types.js';

export type { SnapshotRecord, SnapshotResourcesJson, SnapshotSummary };

/** Queued snapshots written per transaction: a storm queues thousands, and one transaction holds the event loop (25 take ~10 ms). */
const WRITES_PER_FLUSH = 25;

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
  number: number;
  proxy_id: string;
  created_at: number;
  versions: string;
  changed_types: string;
}

interface PayloadKey {
  type_url: string;
  version: string;
}

const SUMMARY_COLUMNS = 'id, number, proxy_id, created_at, versions, changed_types';

/**
 * Every snapshot published to each proxy, newest kept, so a user can see what a proxy got and
 * when, and diff two versions. Stored by content: a type's version is a hash of its resources, so
 * each distinct (type, version) is written once, with a count of the snapshots naming it, however
 * many snapshots and proxies repeat it, and goes with the last of them. A snapshot costs one row
 * and one counter update per type, and JSON only for content never seen before: it is written for
 * every published snapshot, thousands of them when a storm of proxies connects.
 */
export class SnapshotHistory {
  readonly #insert: Statement<[Omit<SummaryRow, 'id' | 'number'>], { id: number; number: number }>;
  readonly #countReference: Statement<[PayloadKey]>;
  readonly #insertPayload: Statement<[PayloadKey & { resources: string }]>;
  readonly #dropReference: Statement<[PayloadKey]>;
  readonly #deleteUnreferenced: Statement<[PayloadKey]>;
  readonly #oldestKept: Statement<[{ proxy_id: string; keep: number }], number>;
  readonly #pruned: Statement<[{ proxy_id: string; oldest_kept: number }], Pick<SummaryRow, 'versions'>>;
  readonly #prune: Statement<[{ proxy_id: string; oldest_kept: number }]>;
  readonly #list: Statement<[string], SummaryRow>;
  readonly #get: Statement<[number], SummaryRow>;
  readonly #latest: Statement<[string], SummaryRow>;
  readonly #payload: Statement<[PayloadKey], string>;
  readonly #inTransaction: <T>(write: () => T) => T;
  readonly #db: Db;
  /** Snapshots `recordSoon` queued, written together by the next flush. */
  #queued: NewSnapshotRecord[] = [];
  #flushScheduled = false;

  constructor(db: Db) {
    this.#db = db;
    this.#insert = db.prepare(
      // The proxy's next number: one more than its newest snapshot's (kept even when older ones are pruned).
      `INSERT INTO snapshot_history (proxy_id, number, created_at, versions, changed_types)
       VALUES (
         @proxy_id,
         coalesce((SELECT number FROM snapshot_history WHERE proxy_id = @proxy_id ORDER BY id DESC LIMIT 1), 0) + 1,
         @created_at, @versions, @changed_types
       ) RETURNING id, number`,
    );
    const payloadKey = 'type_url = @type_url AND version = @version';
    this.#countReference = db.prepare(`UPDATE snapshot_payloads SET snapshots = snapshots + 1 WHERE ${payloadKey}`);
    this.#insertPayload = db.prepare(
      'INSERT INTO snapshot_payloads (type_url, version, resources, snapshots) VALUES (@type_url, @version, @resources, 1)',
    );
    this.#dropReference = db.prepare(`UPDATE snapshot_payloads SET snapshots = snapshots - 1 WHERE ${payloadKey}`);
    this.#deleteUnreferenced = db.prepare(`DELETE FROM snapshot_payloads WHERE ${payloadKey} AND snapshots <= 0`);
    // The id of the proxy's keep-th newest snapshot; undefined while it has no more than that.
    this.#oldestKept = db
      .prepare<[{ proxy_id: string; keep: number }], number>(
        'SELECT id FROM snapshot_history WHERE proxy_id = @proxy_id ORDER BY id DESC LIMIT 1 OFFSET @keep - 1',
      )
      .pluck();
    this.#pruned = db.prepare('SELECT versions FROM snapshot_history WHERE proxy_id = @proxy_id AND id < @oldest_kept');
    this.#prune = db.prepare('DELETE FROM snapshot_history WHERE proxy_id = @proxy_id AND id < @oldest_kept');
    this.#list = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC`);
    this.#get = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE id = ?`);
    this.#latest = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC LIMIT 1`);
    this.#payload = db.prepare<[PayloadKey], string>(`SELECT resources FROM snapshot_payloads WHERE ${payloadKey}`).pluck();
    const transaction = db.transaction((write: () => unknown) => write());
    this.#inTransaction = <T>(write: () => T) => transaction(write) as T;
  }

  /** Records a published snapshot and prunes the proxy's oldest beyond SNAPSHOTS_KEPT_PER_PROXY. */
  record(snapshot: NewSnapshotRecord): SnapshotSummary {
    const { id, number } = this.#inTransaction(() => this.#write(snapshot));
    return {
      id,
      number,
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
    this.#inTransaction(() => batch.forEach((snapshot) => this.#write(snapshot)));
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
    return this.#inTransaction(() => this.#pruneBelow(proxyId, Number.MAX_SAFE_INTEGER));
  }

  /** Inside a transaction: the snapshot's row, a reference to each of its payloads, and the prune. */
  #write(snapshot: NewSnapshotRecord): { id: number; number: number } {
    const row = this.#insert.get({
      proxy_id: snapshot.proxyId,
      created_at: snapshot.createdAt,
      versions: JSON.stringify(snapshot.versions),
      changed_types: JSON.stringify(snapshot.changedTypes),
    })!;
    for (const [type_url, version] of Object.entries(snapshot.versions)) {
      const key = { type_url, version };
      if (this.#countReference.run(key).changes === 0) {
        this.#insertPayload.run({ ...key, resources: JSON.stringify(snapshot.resources[type_url] ?? []) });
      }
    }
    const oldestKept = this.#oldestKept.get({ proxy_id: snapshot.proxyId, keep: SNAPSHOTS_KEPT_PER_PROXY });
    if (oldestKept !== undefined) this.#pruneBelow(snapshot.proxyId, oldestKept);
    return row;
  }

  /** Inside a transaction: deletes the proxy's snapshots older than `oldestKept` and the payloads only they named. */
  #pruneBelow(proxyId: string, oldestKept: number): number {
    const params = { proxy_id: proxyId, oldest_kept: oldestKept };
    for (const { versions } of this.#pruned.all(params)) {
      for (const [type_url, version] of Object.entries(JSON.parse(versions) as Record<string, string>)) {
        this.#dropReference.run({ type_url, version });
        this.#deleteUnreferenced.run({ type_url, version });
      }
    }
    return this.#prune.run(params).changes;
  }

  #withResources(row: SummaryRow | undefined): SnapshotRecord | undefined {
    if (!row) return undefined;
    const summary = toSummary(row);
    const resources: Record<string, SnapshotResourcesJson[string]> = {};
    for (const [type_url, version] of Object.entries(summary.versions)) {
      resources[type_url] = JSON.parse(this.#payload.get({ type_url, version }) ?? '[]');
    }
    return { ...summary, resources };
  }
}

function toSummary(row: SummaryRow): SnapshotSummary {
  return {
    id: row.id,
    number: row.number,
    proxyId: row.proxy_id,
    createdAt: row.created_at,
    versions: JSON.parse(row.versions) as Record<string, string>,
    changedTypes: JSON.parse(row.changed_types) as string[],
  };
}
