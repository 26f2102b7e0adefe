import type { Sleep } from '../sleep.js';

/** A sleep that returns at once and remembers what it was asked to wait. */
export function recordingSleep(): { sleep: Sleep; requested: number[] } {
  const requested: number[] = [];
  return { sleep: async (ms) => void requested.push(ms), requested };
}

/**
 * A sleep that lasts until the test releases it, so that a test can hold a stream inside a wait
 * and look at everything else meanwhile, without depending on how long anything takes.
 */
export class GatedSleep {
  readonly requested: number[] = [];
  readonly #held: Array<() => void> = [];
  readonly #waiters: Array<{ count: number; resolve: () => void }> = [];

  readonly sleep: Sleep = (ms) =>
    new Promise((resolve) => {
      this.requested.push(ms);
      this.#held.push(resolve);
      for (const waiter of this.#waiters.filter(({ count }) => this.requested.length >= count)) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });

  /** Resolves once `count` sleeps have started. */
  started(count: number): Promise<void> {
    if (this.requested.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  /** Ends every sleep in progress. */
  releaseAll(): void {
    for (const release of this.#held.splice(0)) release();
  }
}
