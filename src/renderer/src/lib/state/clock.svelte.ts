import { createSubscriber } from 'svelte/reactivity';

/** The current time, ticking once a second while something shows it ("online since 12s"). */
class Clock {
  readonly #subscribe = createSubscriber((update) => {
    const timer = setInterval(update, 1000);
    return () => clearInterval(timer);
  });

  get now(): number {
    this.#subscribe();
    return Date.now();
  }
}

export const clock = new Clock();
