
/**
 * Writes committed per group: a storm of registrations must not hold the event loop in one long
 * transaction (25 upserts take a few ms; 100 pushed the storm's event-loop lag p99 past 100 ms).
 */
export const WRITES_PER_GROUP = 25;

interface QueuedWrite {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Commits the writes queued during one event-loop turn together. With `synchronous = FULL` every
 * commit costs an fsync, and a thousand proxies registering at once would otherwise pay a thousand
 * of them in a row; grouped, they pay one per group.
 *
 * Each write still runs in its own savepoint: one that throws is rolled back alone and rejects
 * alone. Every promise settles only after the group's COMMIT has returned, so nobody hears of a
 * write that is not yet durable, and a failed COMMIT rejects the whole group. No other process
 * can hold the database's lock (the core's connection keeps it, `store/database.ts`), so a group
 * never waits for one.
 */
export class GroupCommit {
  /** Runs its argument in a transaction, or in a savepoint when one is already open. */
  readonly #transaction: <T>(fn: () => T) => T;
  #queued: QueuedWrite[] = [];
  #scheduled = false;

  constructor(transaction: <T>(fn: () => T) => T) {
    this.#transaction = transaction;
  }

  /** Queues `write` (synchronous store calls only) for the next group; resolves with its result once committed. */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queued.push({ write, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#commit(this.#queued.splice(0, WRITES_PER_GROUP));
      if (this.#queued.length > 0) this.#schedule();
    });
  }

  #commit(group: QueuedWrite[]): void {
    let outcomes: Outcome[];
    try {
      outcomes = this.#transaction(() => group.map(({ write }) => this.#inSavepoint(write)));
    } catch (error) {
      for (const { reject } of group) reject(error);
      return;
    }
    group.forEach(({ resolve, reject }, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.error);
    });
  }

  #inSavepoint(write: () => unknown): Outcome {
    try {
      return { ok: true, value: this.#transaction(write) };
    } catch (error) {
      return { ok: false, error };
    }
  }
}
