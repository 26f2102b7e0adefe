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

/**
 * What one proxy's history may hold, each snapshot counted at its configuration's full size (so
 * the bound holds however snapshots share payloads): 16 MiB keeps all 50 snapshots of a typical
 * proxy (20–100 KB of config) and the latest few of one with thousands of outbounds.
 */
export const HISTORY_BYTES_PER_PROXY = 16 * 1024 * 1024;

/** What the whole history may hold, counted as above; the oldest snapshots go first, never a proxy's latest. */
export const HISTORY_BYTES = 256 * 1024 * 1024;

/**
 * Free pages that make a flush give space back to the file system, and how many it gives back per
 * turn (4 KiB pages: 4 MiB and 16 MiB), so that a large prune is returned over a few turns rather
 * than one long stall.
 */
const RECLAIM_AFTER_FREE_PAGES = 1_024;
const RECLAIM_PAGES_PER_TURN = 4_096;

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
  /** HISTORY_BYTES_PER_PROXY unless a test wants a storm to reach it sooner. */
  maxBytesPerProxy?: number;
  /** HISTORY_BYTES, likewise. */
  maxBytes?: number;
}

/** What publishing needs of a history: this class, or the storage worker's (store/worker/remote-snapshot-history.ts). */
export type HistoryRecorder = Pick<SnapshotHistory, 'recordSoon' | 'flush'>;

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

/** A snapshot as pruning sees it: which payloads it names and what it counts for. */
interface PrunedRow {
  id: number;
  proxy_id: string;
  versions: string;
  bytes: number;
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
  readonly #insert: Statement<[Omit<SummaryRow, 'id' | 'number'> & { bytes: number }], { id: number; number: number }>;
  readonly #countReference: Statement<[PayloadKey], { bytes: number }>;
  readonly #insertPayload: Statement<[PayloadKey & { resources: string; bytes: number }]>;
  readonly #dropReference: Statement<[PayloadKey]>;
  readonly #deleteUnreferenced: Statement<[PayloadKey]>;
  readonly #sizesNewestFirst: Statement<[string], Pick<PrunedRow, 'id' | 'bytes'>>;
  readonly #pruned: Statement<[{ proxy_id: string; oldest_kept: number }], PrunedRow>;
  readonly #oldestNotLatest: Statement<[{ limit: number }], PrunedRow>;
  readonly #deleteRow: Statement<[number]>;
  readonly #list: Statement<[string], SummaryRow>;
  readonly #get: Statement<[number], SummaryRow>;
  readonly #latest: Statement<[string], SummaryRow>;
  readonly #payload: Statement<[PayloadKey], string>;
  readonly #inTransaction: <T>(write: () => T) => T;
  readonly #db: Db;
  readonly #onLost: NonNullable<SnapshotHistoryOptions['onLost']>;
  readonly #maxBytesPerProxy: number;
  readonly #maxBytes: number;
  /** What the stored history counts for, in all and per proxy (see HISTORY_BYTES_PER_PROXY). */
  #bytes = 0;
  readonly #bytesByProxy = new Map<string, number>();
  /** Inside a transaction: each proxy's count before it, so that a rollback puts the counts back. */
  #countsBefore: Map<string, number | undefined> | undefined;
  /** A payload was deleted since the last reclaim: free pages may wait to be given back. */
  #payloadsDeleted = false;
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
    this.#maxBytesPerProxy = options.maxBytesPerProxy ?? HISTORY_BYTES_PER_PROXY;
    this.#maxBytes = options.maxBytes ?? HISTORY_BYTES;
    this.#insert = db.prepare(
      // The proxy's next number: one more than its newest snapshot's (kept even when older ones are pruned).
      `INSERT INTO snapshot_history (proxy_id, number, created_at, versions, changed_types, policy_changes, bytes)
       VALUES (
         @proxy_id,
         coalesce((SELECT number FROM snapshot_history WHERE proxy_id = @proxy_id ORDER BY id DESC LIMIT 1), 0) + 1,
         @created_at, @versions, @changed_types, @policy_changes, @bytes
       ) RETURNING id, number`,
    );
    const payloadKey = 'type_url = @type_url AND version = @version';
    this.#countReference = db.prepare(`UPDATE snapshot_payloads SET snapshots = snapshots + 1 WHERE ${payloadKey} RETURNING bytes`);
    this.#insertPayload = db.prepare(
      'INSERT INTO snapshot_payloads (type_url, version, resources, snapshots, bytes) VALUES (@type_url, @version, @resources, 1, @bytes)',
    );
    this.#dropReference = db.prepare(`UPDATE snapshot_payloads SET snapshots = snapshots - 1 WHERE ${payloadKey}`);
    this.#deleteUnreferenced = db.prepare(`DELETE FROM snapshot_payloads WHERE ${payloadKey} AND snapshots <= 0`);
    this.#sizesNewestFirst = db.prepare('SELECT id, bytes FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC');
    this.#pruned = db.prepare('SELECT id, proxy_id, versions, bytes FROM snapshot_history WHERE proxy_id = @proxy_id AND id < @oldest_kept');
    // The oldest snapshots of the whole history, each proxy's latest left out: what the total bound prunes first.
    this.#oldestNotLatest = db.prepare(
      `SELECT id, proxy_id, versions, bytes FROM snapshot_history AS snapshot
       WHERE id < (SELECT max(id) FROM snapshot_history WHERE proxy_id = snapshot.proxy_id)
       ORDER BY id LIMIT @limit`,
    );
    this.#deleteRow = db.prepare('DELETE FROM snapshot_history WHERE id = ?');
    for (const { proxy_id, bytes } of db
      .prepare<[], { proxy_id: string; bytes: number }>('SELECT proxy_id, total(bytes) AS bytes FROM snapshot_history GROUP BY proxy_id')
      .all()) {
      this.#bytesByProxy.set(proxy_id, bytes);
      this.#bytes += bytes;
    }
    this.#list = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC`);
    this.#get = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE id = ?`);
    this.#latest = db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM snapshot_history WHERE proxy_id = ? ORDER BY id DESC LIMIT 1`);
    this.#payload = db.prepare<[PayloadKey], string>(`SELECT resources FROM snapshot_payloads WHERE ${payloadKey}`).pluck();
    const transaction = db.transaction((write: () => unknown) => write());
    // The byte counts follow the rows: what a transaction rolled back is counted back.
    this.#inTransaction = <T>(write: () => T) => {
      const bytesBefore = this.#bytes;
      const countsBefore = (this.#countsBefore = new Map());
      try {
        return transaction(write) as T;
      } catch (error) {
        this.#bytes = bytesBefore;
        for (const [proxyId, bytes] of countsBefore) {
          if (bytes === undefined) this.#bytesByProxy.delete(proxyId);
          else this.#bytesByProxy.set(proxyId, bytes);
        }
        throw error;
      } finally {
        this.#countsBefore = undefined;
      }
    };
  }

  /** Records a published snapshot at once, after whatever is queued, and prunes the proxy's oldest beyond SNAPSHOTS_KEPT_PER_PROXY. */
  record(snapshot: NewSnapshotRecord): SnapshotSummary {
    this.flush();
    const { id, number } = this.#inTransaction(() => {
      const written = this.#write(snapshot);
      this.#pruneToTotalBound();
      return written;
    });
    this.#reclaimFreePages();
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
      storedBytes: this.#bytes,
      maxBytes: this.#maxBytes,
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
        this.#pruneToTotalBound();
      });
    } catch (error) {
      this.#failed(batch, error);
      return;
    }
    this.#reclaimFreePages();
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

  /**
   * Inside a transaction: a reference to each of the snapshot's payloads (written when new), its
   * row, and the prune of the proxy's oldest beyond SNAPSHOTS_KEPT_PER_PROXY or its byte bound.
   */
  #write(snapshot: NewSnapshotRecord): { id: number; number: number } {
    let bytes = 0;
    for (const [type_url, version] of Object.entries(snapshot.versions)) {
      const key = { type_url, version };
      const counted = this.#countReference.get(key);
      if (counted) {
        bytes += counted.bytes;
      } else {
        const resources = JSON.stringify(snapshot.resources[type_url] ?? []);
        const payloadBytes = Buffer.byteLength(resources);
        this.#insertPayload.run({ ...key, resources, bytes: payloadBytes });
        bytes += payloadBytes;
      }
    }
    const row = this.#insert.get({
      proxy_id: snapshot.proxyId,
      created_at: snapshot.createdAt,
      versions: JSON.stringify(snapshot.versions),
      changed_types: JSON.stringify(snapshot.changedTypes),
      policy_changes: JSON.stringify(snapshot.policyChanges ?? []),
      bytes,
    })!;
    this.#counted(snapshot.proxyId, bytes);
    this.#pruneToProxyBound(snapshot.proxyId);
    return row;
  }

  /** Inside a transaction: the proxy's newest snapshots while they fit its bounds (the latest always), the rest pruned. */
  #pruneToProxyBound(proxyId: string): void {
    let kept = 0;
    let keptBytes = 0;
    for (const { id, bytes } of this.#sizesNewestFirst.all(proxyId)) {
      if (kept > 0 && (kept === SNAPSHOTS_KEPT_PER_PROXY || keptBytes + bytes > this.#maxBytesPerProxy)) {
        this.#pruneBelow(proxyId, id + 1);
        return;
      }
      kept++;
      keptBytes += bytes;
    }
  }

  /** Inside a transaction: the oldest snapshots of any proxy but its latest, while the history is over HISTORY_BYTES. */
  #pruneToTotalBound(): void {
    while (this.#bytes > this.#maxBytes) {
      const oldest = this.#oldestNotLatest.all({ limit: 64 });
      if (oldest.length === 0) return;
      for (const row of oldest) {
        if (this.#bytes <= this.#maxBytes) return;
        this.#forget(row);
        this.#deleteRow.run(row.id);
      }
    }
  }

  /** Inside a transaction: deletes the proxy's snapshots older than `oldestKept` and the payloads only they named. */
  #pruneBelow(proxyId: string, oldestKept: number): void {
    for (const row of this.#pruned.all({ proxy_id: proxyId, oldest_kept: oldestKept })) {
      this.#forget(row);
      this.#deleteRow.run(row.id);
    }
  }

  /** Inside a transaction: a snapshot about to go no longer names its payloads or counts for its bytes. */
  #forget({ proxy_id, versions, bytes }: PrunedRow): void {
    for (const [type_url, version] of Object.entries(JSON.parse(versions) as Record<string, string>)) {
      this.#dropReference.run({ type_url, version });
      if (this.#deleteUnreferenced.run({ type_url, version }).changes > 0) this.#payloadsDeleted = true;
    }
    this.#counted(proxy_id, -bytes);
  }

  #counted(proxyId: string, bytes: number): void {
    this.#bytes += bytes;
    const before = this.#bytesByProxy.get(proxyId);
    if (this.#countsBefore && !this.#countsBefore.has(proxyId)) this.#countsBefore.set(proxyId, before);
    const proxyBytes = (before ?? 0) + bytes;
    if (proxyBytes > 0) this.#bytesByProxy.set(proxyId, proxyBytes);
    else this.#bytesByProxy.delete(proxyId);
  }

  /**
   * Gives pages that pruned payloads freed back to the file system, a bounded number per turn: a
   * storm of large configurations must not leave the file at its largest size for good.
   */
  #reclaimFreePages(): void {
    if (!this.#payloadsDeleted) return;
    try {
      if ((this.#db.pragma('freelist_count', { simple: true }) as number) < RECLAIM_AFTER_FREE_PAGES) return;
      this.#db.pragma(`incremental_vacuum(${RECLAIM_PAGES_PER_TURN})`);
      this.#payloadsDeleted = (this.#db.pragma('freelist_count', { simple: true }) as number) >= RECLAIM_AFTER_FREE_PAGES;
    } catch (error) {
      // Space not given back yet is not lost: the next prune tries again.
      console.warn(`snapshot history: could not give free pages back (${(error as Error).message})`);
    }
  }

  /** What the stored history counts for, in bytes (each snapshot at its configuration's full size), in all and for one proxy. */
  storedBytes(proxyId?: string): number {
    this.#flushForRead();
    return proxyId === undefined ? this.#bytes : (this.#bytesByProxy.get(proxyId) ?? 0);
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
