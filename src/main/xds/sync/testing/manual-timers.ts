import type { TimerHandle, Timers } from '../watchdog.js';

interface PendingTimer {
  callback: () => void;
  ms: number;
}

/** Timers that fire only when a test says so; tests assert on what was scheduled, never on elapsed time. */
export class ManualTimers implements Timers {
  readonly #pending = new Set<PendingTimer>();

  setTimer(callback: () => void, ms: number): TimerHandle {
    const timer = { callback, ms };
    this.#pending.add(timer);
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    this.#pending.delete(handle as PendingTimer);
  }

  /** The delays of the timers waiting to fire, in the order they were set. */
  get pending(): number[] {
    return [...this.#pending].map((timer) => timer.ms);
  }

  /** Fires every timer pending now (not those their callbacks set). */
  fireAll(): void {
    const due = [...this.#pending];
    this.#pending.clear();
    for (const timer of due) timer.callback();
  }
}
