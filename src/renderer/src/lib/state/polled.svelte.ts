import { createSubscriber } from 'svelte/reactivity';
import type { CoreEvent } from '../../../../shared/events.js';
import { client } from '../api/index.js';
import { errorMessage } from '../format/error-message.js';

export interface PolledOptions<T> {
  load: () => Promise<T>;
  everyMs: number;
  /** Each fresh value, in order, before it shows (e.g. to keep a history of them). */
  onvalue?: (value: T) => void;
  /** Core events after which the value is fetched at once rather than at the next poll. */
  refreshOn?: (event: CoreEvent) => boolean;
}

/**
 * A value fetched every `everyMs` while something reads it (counters have no event of their own),
 * and at once after the events that change it. One request at a time: a slow answer delays the
 * next poll instead of piling requests up.
 */
export class Polled<T> {
  #value = $state.raw<T>();
  #error = $state<string>();
  #loading: Promise<void> | undefined;
  readonly #options: PolledOptions<T>;

  readonly #subscribe = createSubscriber(() => {
    const timer = setInterval(() => void this.refresh(), this.#options.everyMs);
    const stopEvents = client.subscribe((event) => {
      if (this.#options.refreshOn?.(event)) void this.refresh();
    });
    void this.refresh();
    return () => {
      clearInterval(timer);
      stopEvents();
    };
  });

  constructor(options: PolledOptions<T>) {
    this.#options = options;
  }

  get current(): T | undefined {
    this.#subscribe();
    return this.#value;
  }

  get error(): string | undefined {
    this.#subscribe();
    return this.#error;
  }

  /** Resolves once a value fetched after this call shows. */
  async refresh(): Promise<void> {
    // A request already running may have been answered before what the caller changed: wait for
    // it, then share one follow-up with every other caller that waited.
    const running = this.#loading;
    if (running) {
      await running;
      if (this.#loading) return this.#loading;
    }
    const loading = (this.#loading = this.#load());
    await loading;
    if (this.#loading === loading) this.#loading = undefined;
  }

  async #load(): Promise<void> {
    try {
      const value = await this.#options.load();
      this.#options.onvalue?.(value);
      this.#value = value;
      this.#error = undefined;
    } catch (error) {
      this.#error = errorMessage(error);
    }
  }
}
