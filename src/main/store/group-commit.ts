import { StorageFaultError, storageFaultKind } from './errors.js';

/**
 * Writes committed per group: a storm of registrations must not hold the event loop in one long
 * transaction (25 upserts take a few ms; 100 pushed the storm's event-loop lag p99 past 100 ms).
 */
export const WRITES_PER_GROUP = 25;

/**
 * First wait before a group that found the write lock taken tries again; it doubles per attempt up
 * to LOCK_RETRY_MAX_MS. Short, because most locks are another connection's single commit.
 */
const LOCK_RETRY_FIRST_MS = 5;

/**
 * Longest wait between two attempts: a released lock is noticed within a tenth of a second, and an
 * attempt (one BEGIN blocked for BUSY_TIMEOUT_MS) ten times a second leaves the event loop free.
 */
const LOCK_RETRY_MAX_MS = 100;

/**
 * How long a write waits for another process's lock before it fails. The 5 s busy timeout used to
 * wait as long, synchronously: a backup tool's or a script's transaction fits in it, while a
 * `sqlite3` shell left in an open transaction does not, and the client is told why.
 */
export const LOCK_WAIT_DEADLINE_MS = 5_000;

export interface GroupCommitOptions {
  /** See LOCK_WAIT_DEADLINE_MS; tests shorten it. */
  lockWaitDeadlineMs?: number;
}

interface QueuedWrite {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Epoch ms after which the write stops waiting for the lock and fails. */
  deadline: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Commits the writes queued during one event-loop turn together. With `synchronous = FULL` every
 * commit costs an fsync, and a thousand proxies registering at once would otherwise pay a thousand
 * of them in a row; grouped, they pay one per group.
 *
 * Each write still runs in its own savepoint: one that throws is rolled back alone and rejects
 * alone. Every promise settles only after the group's COMMIT has returned, so nobody hears of a
 * write that is not yet durable, and a failed COMMIT rejects the whole group.
 *
 * When another process holds the write lock, the group waits asynchronously (retries with backoff)
 * rather than in SQLite's busy handler, which would stop the event loop: ADS streams and the API are
 * served meanwhile. A write lands once the lock is released, or fails after its deadline with a
 * StorageFaultError saying the database is locked by another process.
 */
export class GroupCommit {
  /** Runs its argument in a transaction, or in a savepoint when one is already open. */
  readonly #transaction: <T>(fn: () => T) => T;
  readonly #lockWaitDeadlineMs: number;
  #queued: QueuedWrite[] = [];
  #scheduled = false;
  /** Set while the queue waits for another process's lock to be released. */
  #retry: NodeJS.Timeout | undefined;
  #retryDelayMs = LOCK_RETRY_FIRST_MS;

  constructor(transaction: <T>(fn: () => T) => T, options: GroupCommitOptions = {}) {
    this.#transaction = transaction;
    this.#lockWaitDeadlineMs = options.lockWaitDeadlineMs ?? LOCK_WAIT_DEADLINE_MS;
  }

  /** Queues `write` (synchronous store calls only) for the next group; resolves with its result once committed. */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const deadline = Date.now() + this.#lockWaitDeadlineMs;
      this.#queued.push({ write, resolve: resolve as (value: unknown) => void, reject, deadline });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#retry) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#commitNext();
    });
  }

  #commitNext(): void {
    const group = this.#queued.splice(0, WRITES_PER_GROUP);
    if (this.#commit(group) === 'locked') {
      this.#waitForLock(group);
      return;
    }
    this.#retryDelayMs = LOCK_RETRY_FIRST_MS;
    if (this.#queued.length > 0) this.#schedule();
  }

  /** Commits `group`, or leaves it untouched and answers 'locked' when another connection holds the write lock. */
  #commit(group: QueuedWrite[]): 'done' | 'locked' {
    let outcomes: Outcome[];
    try {
      outcomes = this.#transaction(() => group.map(({ write }) => this.#inSavepoint(write)));
    } catch (error) {
      // The transaction never began (or was rolled back whole): the group can simply run again.
      if (storageFaultKind(error) === 'locked') return 'locked';
      for (const { reject } of group) reject(error);
      return 'done';
    }
    group.forEach(({ resolve, reject }, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
    return 'done';
  }

  /** Fails the writes past their deadline; the others go back to the front of the queue for a later attempt. */
  #waitForLock(group: QueuedWrite[]): void {
    const now = Date.now();
    const waiting = group.filter((write) => write.deadline > now);
    for (const write of group) if (write.deadline <= now) write.reject(this.#lockedTooLong());
    this.#queued.unshift(...waiting);
    if (this.#queued.length === 0) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#commitNext();
    }, this.#retryDelayMs);
    this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, LOCK_RETRY_MAX_MS);
  }

  #lockedTooLong(): StorageFaultError {
    return new StorageFaultError(
      'locked',
      `database is locked by another process: the write waited ${this.#lockWaitDeadlineMs} ms for the lock; ` +
        'close the program holding meshdesk.db (a sqlite3 shell, a backup tool) and retry',
    );
  }

  #inSavepoint(write: () => unknown): Outcome {
    try {
      return { ok: true, value: this.#transaction(write) };
    } catch (error) {
      return { ok: false, error };
    }
  }
}
