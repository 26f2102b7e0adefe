import { createSubscriber } from 'svelte/reactivity';
import type { ProxyEvent } from '../../../../shared/proxy-events.js';
import { ApiRequestError, client } from '../../lib/api/index.js';
import { errorMessage } from '../../lib/format/error-message.js';

/**
 * One proxy's timeline, live: fetched once, then each `proxy.event` of this proxy is appended as
 * it comes (a tick a second would make refetching 1000 events wasteful). Events that arrive while
 * the fetch is in flight are kept and merged by their `seq`, so none is lost or shown twice.
 * Shown in time order, recording order (`seq`) breaking ties: a tick records itself after the
 * responses it caused were sent, so by `seq` alone its responses would come first in the same millisecond.
 */
export class TimelineState {
  #events = $state.raw<ProxyEvent[]>([]);
  #error = $state<string>();
  #loaded = $state(false);

  readonly #subscribe = createSubscriber((update) => {
    let pending: ProxyEvent[] | undefined = [];
    const stop = client.subscribe((event) => {
      if (event.topic !== 'proxy.event' || event.proxyId !== this.proxyId) return;
      if (pending) pending.push(event.event);
      else this.#events = inTimeOrder([...this.#events, event.event]);
    });
    const stopStatus = client.onStatus((status) => {
      // Events sent while the connection was down are lost: start over from the API.
      if (status === 'live' && this.#loaded) void this.#load([]).then(update);
    });
    void this.#load(pending).then(() => (pending = undefined));
    return () => {
      stop();
      stopStatus();
    };
  });

  constructor(private readonly proxyId: string, private readonly fetch: () => Promise<{ events: ProxyEvent[] }>) {}

  get events(): ProxyEvent[] {
    this.#subscribe();
    return this.#events;
  }

  get error(): string | undefined {
    this.#subscribe();
    return this.#error;
  }

  get loaded(): boolean {
    this.#subscribe();
    return this.#loaded;
  }

  async #load(arrived: ProxyEvent[]): Promise<void> {
    try {
      const { events } = await this.fetch();
      // By recording order, not by time: an event may carry a time from before it was recorded.
      const last = events.at(-1)?.seq ?? -Infinity;
      this.#events = inTimeOrder([...events, ...arrived.filter((event) => event.seq > last)]);
      this.#error = undefined;
    } catch (error) {
      // A proxy that never connected has no timeline (404): that is an empty one, not a failure.
      if (error instanceof ApiRequestError && error.status === 404) this.#events = [...arrived];
      else this.#error = errorMessage(error);
    } finally {
      this.#loaded = true;
    }
  }
}

/** By time, then by recording order. The list is sorted but for its newest events: the sort is near-linear. */
function inTimeOrder(events: ProxyEvent[]): ProxyEvent[] {
  return events.sort((a, b) => a.at - b.at || a.seq - b.seq);
}
