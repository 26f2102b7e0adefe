import type { Node } from '../../protocol/ads-service.js';
import { AdsServer, type AdsServerOptions } from '../ads-server.js';
import type { Callbacks } from '../callbacks.js';
import { SnapshotCache } from '../snapshot-cache.js';
import { fixtureSnapshot, type FixtureNames } from './fixtures.js';
import { RawAdsClient, withProbe } from './raw-ads-client.js';
import { RawDeltaClient } from './raw-delta-client.js';
import { RecordingCallbacks } from './recording-callbacks.js';

export const NODE_ID = 'default.client';

/** One resource of every type, each pointing at the next. */
export const EVERYTHING: FixtureNames = {
  listeners: [['listener', 'route']],
  routes: [['route', 'cluster']],
  clusters: ['cluster'],
  endpoints: [['cluster', 1]],
};

/**
 * An ADS server on an ephemeral loopback port over a snapshot cache, with a recorder as the last
 * callback, and raw clients of either protocol; `close()` ends them all.
 */
export class AdsTestbed {
  readonly cache = new SnapshotCache();
  readonly recorder = new RecordingCallbacks();
  readonly #servers: AdsServer[] = [];
  readonly #clients: Array<{ close(): void }> = [];

  async start(options: Partial<AdsServerOptions> & { callbacks?: Callbacks[] } = {}): Promise<{ server: AdsServer; port: number }> {
    const server = new AdsServer({ snapshots: this.cache, ...options, callbacks: [...(options.callbacks ?? []), this.recorder] });
    this.#servers.push(server);
    return { server, port: await server.start({ port: 0 }) };
  }

  sotwClient(port: number, node: Node = { id: NODE_ID }): RawAdsClient {
    return this.#track(new RawAdsClient(port, node));
  }

  deltaClient(port: number, node: Node = { id: NODE_ID }): RawDeltaClient {
    return this.#track(new RawDeltaClient(port, node));
  }

  /** A fixture snapshot (plus the probe type every barrier needs) for the node. */
  setSnapshot(version: string, names: FixtureNames, nodeId = NODE_ID): void {
    this.cache.setSnapshot(nodeId, withProbe(fixtureSnapshot(version, names)));
  }

  async close(): Promise<void> {
    for (const client of this.#clients) client.close();
    await Promise.all(this.#servers.map((server) => server.stop()));
  }

  #track<Client extends { close(): void }>(client: Client): Client {
    this.#clients.push(client);
    return client;
  }
}
