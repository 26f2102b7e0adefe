import type { ResourceType } from './resources.js';

/** What is wrong with the database file itself, whatever was being read or written. */
/**
 * What the database refused with, by SQLite's primary result code: `sqlite` is any other code,
 * which no disk or other process causes (a statement meshdesk should not have sent).
 */
export type StorageFaultKind = 'disk-full' | 'locked' | 'corrupt' | 'read-only' | 'disk-error' | 'too-big' | 'out-of-memory' | 'sqlite';

/** One failed write, as `GET /storage` reports it. */
export interface StorageFailure {
  /** `other` for an error that is not a storage fault (a bug): its message says more. */
  kind: StorageFaultKind | 'other';
  message: string;
  /** Epoch ms. */
  at: number;
}

/** How writing the snapshot history goes: history is a record, so its failures never stop serving config. */
export interface HistoryWriteStatus {
  /** Published snapshots the history could not record since meshdesk started. */
  lostSnapshots: number;
  /** Snapshots waiting to be written (while writes pause after a failure). */
  pendingSnapshots: number;
  /** The latest attempt failed: writing resumes on its own once the database takes writes again. */
  failing: boolean;
  lastFailure?: StorageFailure;
  /** What the stored history holds, each snapshot counted at its configuration's full size, and its bound. */
  storedBytes: number;
  maxBytes: number;
}

/** A stored row meshdesk cannot use: it is left out of every listing (and so of every proxy's config) until fixed. */
export interface BrokenRow {
  table: 'resources';
  key: { type: ResourceType; mesh: string; name: string };
  reason: string;
}

/** `GET /storage`: the database's health as the UI's status bar, history and resources views show it. */
export interface StorageStatus {
  history: HistoryWriteStatus;
  brokenRows: BrokenRow[];
}
