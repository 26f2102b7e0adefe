import { createSubscriber } from 'svelte/reactivity';
import { connection } from './connection.svelte.js';

/**
 * The current time for "online since 12s" and times left, ticking every `everyMs` while something
 * shows it. While the core is offline it stops at the moment the core was lost: everything on the
 * page is as of then, and nothing may go on counting as if it were live.
 */
class Clock {
  readonly #subscribe;

  constructor(everyMs: number) {
    this.#subscribe = createSubscriber((update) => {
      const timer = setInterval(update, everyMs);
      return () => clearInterval(timer);
    });
  }

  get now(): number {
    this.#subscribe();
    return connection.offlineSince ?? Date.now();
  }
}

/** Once a second: ages and "since" texts. */
export const clock = new Clock(1000);
/** Ten times a second: times left of cache entries, which live about a second by default. */
export const fineClock = new Clock(100);
