import { createSubscriber } from 'svelte/reactivity';
import type { CoreEvent } from '../../../../shared/events.js';
import { client } from '../api/index.js';
import { errorMessage } from '../format/error-message.js';

/** Events come in bursts (a proxy's responses and ACKs, a bulk apply): one refetch for each burst. */
const BURST_DELAY_MS = 150;

export interface LiveQueryOptions {
  /** How long after an event to refetch; by default long enough for a burst of events to give one request. */
  delayMs?: number;
  /**
   * A failed refetch leaves the last answer shown, beside the error, instead of dropping it: for
   * lists a view keeps showing while the core cannot answer.
   */
  keepLastOnError?: boolean;
  /** The error's text; by default the API's details (e.g. which proxy it does not know), else the message. */
  describeError?: (error: unknown) => string;
}

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
    private readonly options: LiveQueryOptions = {},
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
    }, this.options.delayMs ?? BURST_DELAY_MS);
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
      if (!this.options.keepLastOnError) this.#value = undefined;
      this.#error = (this.options.describeError ?? apiDetails)(error);
    } finally {
      if (generation === this.#generation) this.#loaded = true;
    }
  }
}

function apiDetails(error: unknown): string {
  const details = error instanceof Error ? (error as { body?: { details?: string } }).body?.details : undefined;
  return details ?? errorMessage(error);
}
