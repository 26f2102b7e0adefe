import type { MessagePort } from 'node:worker_threads';
import type { CoreEvent } from '../../../shared/events.js';
import type { Resource, ResourceInput, ResourceKey, ResourceType } from '../../../shared/resources.js';
import type { BrokenRow, HistoryWriteStatus, StorageFailure } from '../../../shared/storage-types.js';
import type { ListOptions, StatusWrite, UpsertResult } from '../../manager/interfaces.js';
import type { StoredProxy } from '../proxy-records.js';
import type { SettingRow } from '../settings-table.js';
import type { NewSnapshotRecord, SnapshotRecord, SnapshotSummary } from '../snapshot-history.js';
import type { TokenRow } from '../token-table.js';
import type { SerializedError } from './serialized-error.js';
import type { ProxyEventBody } from '../../../shared/proxy-events.js';
import type { ProxyStatus } from '../../../shared/api-types.js';

/** What the storage worker is started with. */
export interface StorageWorkerData {
  file: string;
  nativeBinding: string | undefined;
  /** Where the worker answers synchronous calls (see StorageClient.callSync), and the word it flips when it has. */
  syncPort: MessagePort;
  syncSignal: SharedArrayBuffer;
}

/**
 * Every request the worker answers, by name: the stores' own methods, run on the worker's
 * connection. Resource writes go through the worker's ResourceManager, so they keep its
 * validation, relation checks and group commits; an upsert's precondition is a function and
 * cannot cross, so the client judges it and sends the version it judged.
 */
export interface StorageCalls {
  'resources.get': (type: ResourceType, key: { mesh: string; name: string }) => Resource;
  'resources.list': (type: ResourceType, options: ListOptions) => Resource[];
  /** The stored resource, or undefined when there is none or its row is broken (a write may repair it). */
  'resources.storedOrBroken': (key: ResourceKey) => Resource | undefined;
  'resources.create': (input: ResourceInput) => Resource;
  'resources.update': (input: ResourceInput) => Resource;
  'resources.upsert': (input: ResourceInput) => UpsertResult;
  'resources.writeAll': (inputs: ResourceInput[]) => UpsertResult[];
  'resources.delete': (key: ResourceKey, options: { version?: number }) => void;
  'resources.writeStatuses': (writes: readonly StatusWrite[]) => void;
  'resources.checkStored': () => void;
  'resources.ensureDefaultMesh': () => void;
  'history.list': (proxyId: string) => SnapshotSummary[];
  'history.get': (id: number) => SnapshotRecord | undefined;
  'history.latest': (proxyId: string) => SnapshotRecord | undefined;
  'history.storedBytes': (proxyId?: string) => number;
  'history.writeStatus': () => HistoryWriteStatus;
  'records.load': () => StoredProxy[];
  'settings.rows': () => SettingRow[];
  'settings.save': (rows: readonly SettingRow[], modificationTime: string) => void;
  'tokens.all': () => TokenRow[];
  'tokens.put': (row: TokenRow) => void;
  /**
   * Test controls. `stall.hold` blocks the worker's thread (after setting `signal[1]`) until
   * `signal[0]` is set, as a disk that stops answering blocks it in a read or an fsync: tests and
   * the benchmark stall storage for as long as they choose. `faults.readOnly` makes the connection
   * refuse writes with SQLite's own SQLITE_READONLY, as a disk remounted read-only does.
   */
  'stall.hold': (signal: SharedArrayBuffer) => void;
  'faults.readOnly': (readOnly: boolean) => void;
  /** Writes what is queued, closes the stores and the database. */
  close: () => void;
}

/** Requests with no answer: queued writes of records that are not the product (history, timelines). */
export interface StorageNotices {
  'history.recordSoon': (snapshot: NewSnapshotRecord) => void;
  'history.deleteProxy': (proxyId: string) => void;
  'history.flush': () => void;
  'records.event': (proxyId: string, event: ProxyEventBody) => void;
  'records.status': (status: ProxyStatus) => void;
  'records.departed': (proxyId: string, at: number | null) => void;
  'records.forget': (proxyId: string) => void;
  'records.flush': () => void;
}

export type CallName = keyof StorageCalls;
export type NoticeName = keyof StorageNotices;

export interface CallMessage {
  kind: 'call';
  id: number;
  name: CallName;
  args: unknown[];
}

/** The notices of one event-loop turn, posted together. */
export interface NoticesMessage {
  kind: 'notices';
  notices: { name: NoticeName; args: unknown[] }[];
}

export type ToWorker = CallMessage | NoticesMessage;

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };

export type FromWorker =
  | { kind: 'opened' }
  | { kind: 'open-failed'; error: SerializedError }
  | ({ kind: 'reply' } & Reply)
  /** A resource write the worker's manager committed, posted before the write's reply. */
  | { kind: 'event'; event: CoreEvent }
  /** The broken rows reads have met, whenever they change. */
  | { kind: 'broken-rows'; rows: BrokenRow[] }
  | { kind: 'history-lost'; count: number; fault: StorageFailure['kind'] }
  /** What the stores log, logged again by the main thread, where the process's log is read and kept. */
  | { kind: 'log'; level: LogLevel; text: string };

export type LogLevel = 'error' | 'warn' | 'info' | 'log';
