import type { TimerHandle, Timers } from '../watchdog.js';

interface PendingTimer {
  callback: () => void;
  ms: number;
}

interface SetWaiter {
  left: number;
  resolve: () => void;
}

/** Timers that fire only when a test says so; tests assert on what was scheduled, never on elapsed time. */
export class ManualTimers implements Timers {
  readonly #pending = new Set<PendingTimer>();
  readonly #setWaiters = new Set<SetWaiter>();

  setTimer(callback: () => void, ms: number): TimerHandle {
    const timer = { callback, ms };
    this.#pending.add(timer);
    for (const waiter of this.#setWaiters) {
      if (--waiter.left > 0) continue;
      this.#setWaiters.delete(waiter);
      waiter.resolve();
    }
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    this.#pending.delete(handle as PendingTimer);
  }

  /** The delays of the timers waiting to fire, in the order they were set. */
  get pending(): number[] {
    return [...this.#pending].map((timer) => timer.ms);
  }

  /**
   * Resolves once `count` more timers have been set from now. A watchdog sets its next timer as a
   * tick ends, so this is how a test waits for ticks to end, however long their reads take.
   */
  whenSet(count: number): Promise<void> {
    return new Promise((resolve) => this.#setWaiters.add({ left: count, resolve }));
  }

  /** Fires every timer pending now (not those their callbacks set). */
  fireAll(): void {
    const due = [...this.#pending];
    this.#pending.clear();
    for (const timer of due) timer.callback();
  }
}
