import type { XdsStats } from '../../../../shared/stats-types.js';
import { client } from '../api/index.js';
import { Polled } from './polled.svelte.js';

/** First-config breakdowns and distributions change with every tick: every two seconds is live enough. */
const POLL_MS = 2000;

/** The Sync timing view's data: `GET /stats/xds`, polled while shown and fetched at once when a proxy connects. */
export class XdsStatsState {
  readonly #stats = new Polled<XdsStats>({
    load: () => client.xdsStats(),
    everyMs: POLL_MS,
    refreshOn: (event) => event.topic === 'proxy.event' && (event.event.kind === 'stream-opened' || event.event.kind === 'ack'),
  });

  get current(): XdsStats | undefined {
    return this.#stats.current;
  }

  get error(): string | undefined {
    return this.#stats.error;
  }
}
