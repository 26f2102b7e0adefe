import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';
import type { PolicyVersionChange, SnapshotRecord, SnapshotResourcesJson, SnapshotSummary } from '../../shared/api-types.js';
import type { HistoryWriteStatus, StorageFailure } from '../../shared/storage-types.js';
import { asStorageFault, storageFaultKind } from './errors.js';

export type { SnapshotRecord, SnapshotResourcesJson, SnapshotSummary };

/** Queued snapshots written per transaction: a storm queues thousands, and one transaction holds the event loop (25 take ~10 ms). */
const WRITES_PER_FLUSH = 25;

/**
 * Snapshots kept waiting at most while writes pause after a failure; beyond, the oldest are dropped
 * (and counted as lost). A queued snapshot holds its generated resources (tens of KB for a proxy
 * with many services), so this bounds the memory a long pause can take to tens of MB, while a storm
 * of a thousand proxies publishing at once still fits whole.
 */
export const MAX_PENDING_SNAPSHOTS = 2_000;

/**
 * First wait after a failed history write before the next attempt; it doubles per failure up to
 * HISTORY_RETRY_MAX_MS. Short, because a failure is often one moment's (space freed at once).
 */
const HISTORY_RETRY_FIRST_MS = 10;

/**
 * Longest wait between attempts while history cannot be written: freed disk space or a released
 * disk is noticed within 2 s, and a full disk costs one failed transaction per 2 s, not one per
 * published snapshot.
 */
const HISTORY_RETRY_MAX_MS = 2_000;

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
  /** The policies changed in the proxy's mesh since its previous snapshot; none when not told. */
  policyChanges?: readonly PolicyVersionChange[];
  resources: SnapshotResourcesJson;
}

export interface SnapshotHistoryOptions {
  /** Told of every snapshot the history gives up on, with the fault's kind (the `snapshot_history_lost` metric). */
  onLost?: (count: number, kind: StorageFailure['kind']) => void;
}

/** A queued history write: a snapshot to record, or a proxy whose history goes (kept in order with the records). */
type HistoryWrite = { snapshot: NewSnapshotRecord } | { forgetProxy: string };

interface SummaryRow {
  id: number;
  number: number;
  proxy_id: string;
  created_at: number;
  versions: string;
  changed_types: string;
  policy_changes: string;
}

interface PayloadKey {
  type_url: string;
  version: string;
}

const SUMMARY_COLUMNS = 'id, number, proxy_id, created_at, versions, changed_types, policy_changes';

/**
 * Every snapshot published to each proxy, newest kept, so a user can see what a proxy got and
 * when, and diff two versions. Stored by content: a type's version is a hash of its resources, so
 * each distinct (type, version) is written once, with a count of the snapshots naming it, however
 * many snapshots and proxies repeat it, and goes with the last of them. A snapshot costs one row
 * and one counter update per type, and JSON only for content never seen before: it is written for
 * every published snapshot, thousands of them when a storm of proxies connects.
 *
 * History is a record, not the product: a write the database refuses (disk full, a damaged file)
 * never reaches the caller that published the snapshot. A failure drops what is queued (it would
 * fail the same way again, and holding it would only cost memory) and pauses writes, retried with
 * backoff; what is published meanwhile waits (bounded by MAX_PENDING_SNAPSHOTS). Every snapshot
 * given up on is counted (`writeStatus`, `onLost`), and writing resumes by itself once the
 * database takes writes again.
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
  readonly #onLost: NonNullable<SnapshotHistoryOptions['onLost']>;
  /** Writes `recordSoon` and `deleteProxy` queued, written together by the next flush. */
  #queued: HistoryWrite[] = [];
  #flushScheduled = false;
  /** Set after a failed write: no attempt before it fires. */
  #retry: NodeJS.Timeout | undefined;
  #retryDelayMs = HISTORY_RETRY_FIRST_MS;
  #lost = 0;
  #failing = false;
  #lastFailure: StorageFailure | undefined;

  constructor(db: Db, options: SnapshotHistoryOptions = {}) {
    this.#db = db;
    this.#onLost = options.onLost ?? (() => {});
    this.#insert = db.prepare(
      // The proxy's next number: one more than its newest snapshot's (kept even when older ones are pruned).
      `INSERT INTO snapshot_history (proxy_id, number, created_at, versions, changed_types, policy_changes)
       VALUES (
         @proxy_id,
         coalesce((SELECT number FROM snapshot_history WHERE proxy_id = @proxy_id ORDER BY id DESC LIMIT 1), 0) + 1,
         @created_at, @versions, @changed_types, @policy_changes
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

  /** Records a published snapshot at once, after whatever is queued, and prunes the proxy's oldest beyond SNAPSHOTS_KEPT_PER_PROXY. */
  record(snapshot: NewSnapshotRecord): SnapshotSummary {
    this.flush();
    const { id, number } = this.#inTransaction(() => this.#write(snapshot));
    return {
      id,
      number,
      proxyId: snapshot.proxyId,
      createdAt: snapshot.createdAt,
      versions: { ...snapshot.versions },
      changedTypes: [...snapshot.changedTypes],
      policyChanges: [...(snapshot.policyChanges ?? [])],
    };
  }

  /**
   * Queues a snapshot and writes the queued ones together, up to WRITES_PER_FLUSH per transaction
   * and event-loop turn, once the current turn ends: with `synchronous = FULL` a transaction costs
   * an fsync, and a change of a service's endpoints publishes to every proxy using it at once.
   * Reads flush first, so nobody ever sees the history without a snapshot already published.
   * Never throws: see the class comment for what happens when the database refuses the write.
   */
  recordSoon(snapshot: NewSnapshotRecord): void {
    this.#enqueue({ snapshot });
  }

  /**
   * Writes whatever is queued, nothing once the database is closed; `limit` leaves the rest for a
   * later turn. Never throws: a failure is counted and reported by `writeStatus`.
   */
  flush(limit = Number.POSITIVE_INFINITY): void {
    if (this.#queued.length === 0 || !this.#db.open) return;
    this.#writeBatch(this.#queued.splice(0, limit));
  }

  /** How writing goes: what was lost, what waits, and the latest failure. */
  writeStatus(): HistoryWriteStatus {
    return {
      lostSnapshots: this.#lost,
      pendingSnapshots: this.#queued.filter((write) => 'snapshot' in write).length,
      failing: this.#failing,
      ...(this.#lastFailure && { lastFailure: { ...this.#lastFailure } }),
    };
  }

  /** Stops retrying, after a last `flush`: whatever still cannot be written is counted as lost. */
  close(): void {
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.flush();
    clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#giveUp(this.#queued.splice(0), this.#lastFailure?.kind ?? 'other');
  }

  /** A read shows what is published, unless writes are pausing after a failure: it then shows what is stored. */
  #flushForRead(): void {
    if (!this.#retry) this.flush();
  }

  #enqueue(write: HistoryWrite): void {
    this.#queued.push(write);
    const excess = this.#queued.length - MAX_PENDING_SNAPSHOTS;
    if (excess > 0) this.#giveUp(this.#queued.splice(0, excess), this.#lastFailure?.kind ?? 'other');
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#retry) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      this.flush(WRITES_PER_FLUSH);
      if (this.#queued.length > 0 && this.#db.open) this.#scheduleFlush();
    });
  }

  /** One transaction; on failure the batch and the queue are given up, and attempts pause. */
  #writeBatch(batch: HistoryWrite[]): void {
    try {
      this.#inTransaction(() => {
        for (const write of batch) {
          if ('snapshot' in write) this.#write(write.snapshot);
          else this.#pruneBelow(write.forgetProxy, Number.MAX_SAFE_INTEGER);
        }
      });
    } catch (error) {
      this.#failed(batch, error);
      return;
    }
    if (this.#failing) console.info(`snapshot history: writing again (${this.#lost} snapshots lost while it could not)`);
    this.#failing = false;
    this.#retryDelayMs = HISTORY_RETRY_FIRST_MS;
  }

  #failed(batch: HistoryWrite[], error: unknown): void {
    const kind = storageFaultKind(error) ?? 'other';
    const fault = asStorageFault(error);
    const message = fault instanceof Error ? fault.message : String(fault);
    if (!this.#failing) console.error(`snapshot history: cannot write (${message}); serving config goes on`);
    this.#failing = true;
    this.#lastFailure = { kind, message, at: Date.now() };
    this.#giveUp([...batch, ...this.#queued.splice(0)], kind);
    if (!this.#retry) {
      this.#retry = setTimeout(() => {
        this.#retry = undefined;
        this.#scheduleFlush();
      }, this.#retryDelayMs);
      this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, HISTORY_RETRY_MAX_MS);
    }
  }

  #giveUp(writes: HistoryWrite[], kind: StorageFailure['kind']): void {
    const lost = writes.filter((write) => 'snapshot' in write).length;
    const forgotten = writes.length - lost;
    if (forgotten > 0) console.warn(`snapshot history: the history of ${forgotten} deleted proxies stays in the database`);
    if (lost === 0) return;
    this.#lost += lost;
    this.#onLost(lost, kind);
  }

  /** The proxy's snapshots, newest first, without their resources. */
  list(proxyId: string): SnapshotSummary[] {
    this.#flushForRead();
    return this.#list.all(proxyId).map(toSummary);
  }

  get(id: number): SnapshotRecord | undefined {
    this.#flushForRead();
    return this.#withResources(this.#get.get(id));
  }

  latest(proxyId: string): SnapshotRecord | undefined {
    this.#flushForRead();
    return this.#withResources(this.#latest.get(proxyId));
  }

  /**
   * Forgets a proxy's history, once its Dataplane is gone for good: at once when the database takes
   * writes, else queued after the proxy's snapshots, so none of them outlives it. Never throws.
   */
  deleteProxy(proxyId: string): void {
    this.#enqueue({ forgetProxy: proxyId });
    this.#flushForRead();
  }

  /** Inside a transaction: the snapshot's row, a reference to each of its payloads, and the prune. */
  #write(snapshot: NewSnapshotRecord): { id: number; number: number } {
    const row = this.#insert.get({
      proxy_id: snapshot.proxyId,
      created_at: snapshot.createdAt,
      versions: JSON.stringify(snapshot.versions),
      changed_types: JSON.stringify(snapshot.changedTypes),
      policy_changes: JSON.stringify(snapshot.policyChanges ?? []),
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
    policyChanges: JSON.parse(row.policy_changes) as PolicyVersionChange[],
  };
}
