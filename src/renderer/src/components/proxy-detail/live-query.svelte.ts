import { createSubscriber } from 'svelte/reactivity';
import type { CoreEvent } from '../../../../shared/events.js';
import { client } from '../../lib/api/index.js';

/**
 * One API answer kept live while something shows it: refetched shortly after a relevant core
 * event (bursts give one request) and after the connection comes back. The newest request wins.
 */
export class LiveQuery<T> {
  #value = $state.raw<T>();
  #error = $state<string>();
  #loaded = $state(false);
  #timer: ReturnType<typeof setTimeout> | undefined;
  #generation = 0;

  readonly #subscribe = createSubscriber(() => {
    const stopEvents = client.subscribe((event) => {
      if (this.relevant(event)) this.refresh();
    });
    const stopStatus = client.onStatus((status) => {
      if (status === 'live') this.refresh();
    });
    void this.#load();
    return () => {
      stopEvents();
      stopStatus();
      clearTimeout(this.#timer);
      this.#timer = undefined;
    };
  });

  constructor(
    private readonly fetch: () => Promise<T>,
    private readonly relevant: (event: CoreEvent) => boolean,
    private readonly delayMs = 150,
  ) {}

  get value(): T | undefined {
    this.#subscribe();
    return this.#value;
  }

  get error(): string | undefined {
    this.#subscribe();
    return this.#error;
  }

  /** Whether the first answer (value or error) came. */
  get loaded(): boolean {
    this.#subscribe();
    return this.#loaded;
  }

  refresh(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#load();
    }, this.delayMs);
  }

  async #load(): Promise<void> {
    const generation = ++this.#generation;
    try {
      const value = await this.fetch();
      if (generation !== this.#generation) return;
      this.#value = value;
      this.#error = undefined;
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#value = undefined;
      this.#error = error instanceof Error ? ((error as { body?: { details?: string } }).body?.details ?? error.message) : String(error);
    } finally {
      if (generation === this.#generation) this.#loaded = true;
    }
  }
}
