import type { Settings } from '../../config/settings.js';
import type { Callbacks, StreamRequestEvent } from '../server/callbacks.js';
import { sleep as realSleep, type Sleep } from './sleep.js';

export interface NackBackoffOptions {
  settings: Settings;
  /** Tests inject their own. */
  sleep?: Sleep;
}

/**
 * Last in the chain (Kuma's NackBackoff): a proxy that rejected a configuration is not answered
 * again until `xds.nackBackoff` (the value in force now) has passed, so that a proxy and a control
 * plane stuck on a bad configuration do not spin. Only the NACKing stream waits: the hook runs on
 * that stream's own queue, which also holds back the pushes due to it meanwhile.
 */
export class NackBackoff implements Callbacks {
  readonly #settings: Settings;
  readonly #sleep: Sleep;
  readonly #shutdown = new AbortController();

  constructor(options: NackBackoffOptions) {
    this.#settings = options.settings;
    this.#sleep = options.sleep ?? realSleep;
  }

  async onStreamRequest({ request, signal }: StreamRequestEvent): Promise<void> {
    // Any rejection, as Kuma does, a stale one included: a proxy whose config changes faster than
    // its NACKs travel would otherwise get a response in each round trip (the NACK of the response
    // before last is stale when it arrives), twice as often as the backoff allows.
    if (!request.error_detail) return;
    // A stream that closes ends its backoff: its close (and the release of its node id) waits for it.
    await this.#sleep(this.#settings.get('xds.nackBackoff'), AbortSignal.any([this.#shutdown.signal, signal]));
  }

  /** Ends every backoff in progress, so that shutdown does not wait for them. */
  close(): void {
    this.#shutdown.abort();
  }
}
