import { createSubscriber } from 'svelte/reactivity';
import type { DemoStatus } from '../../../../shared/demo-types.js';
import { client } from '../api/index.js';
import { errorMessage } from '../format/error-message.js';

/** The gRPC client's call counts change every quarter second while the demo runs: a second is live enough. */
const DEMO_POLL_MS = 1_000;

/**
 * `GET /demo`, and the start and stop actions, shared by the Proxies view's empty state and its
 * banner. Read when events start flowing; polled only while the demo is not stopped (its counters
 * have no event), so an idle page asks nothing.
 */
class DemoMesh {
  #status = $state.raw<DemoStatus>();
  /** Why the last start, stop or read failed, as the API said. */
  failure = $state<string>();
  busy = $state(false);

  readonly #subscribe = createSubscriber(() => {
    const stopLive = client.onLive(() => void this.refresh());
    const timer = setInterval(() => {
      if (this.#status && this.#status.state !== 'stopped') void this.refresh();
    }, DEMO_POLL_MS);
    return () => {
      stopLive();
      clearInterval(timer);
    };
  });

  get status(): DemoStatus | undefined {
    this.#subscribe();
    return this.#status;
  }

  start(): Promise<void> {
    return this.#act(() => client.startDemo());
  }

  stop(): Promise<void> {
    return this.#act(() => client.stopDemo());
  }

  async refresh(): Promise<void> {
    try {
      this.#status = await client.demo();
    } catch (error) {
      this.failure = errorMessage(error);
    }
  }

  async #act(action: () => Promise<DemoStatus>): Promise<void> {
    this.busy = true;
    this.failure = undefined;
    try {
      this.#status = await action();
    } catch (error) {
      this.failure = errorMessage(error);
      await this.refresh();
    } finally {
      this.busy = false;
    }
  }
}

export const demoMesh = new DemoMesh();
