import * as grpc from '@grpc/grpc-js';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { adsServiceDefinition } from '../../src/main/xds/protocol/ads-service.js';
import { ENDPOINT_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import type { ControlPlaneApi } from './control-plane-api.js';
import { SimulatedProxy, type EndpointsUpdate } from '../../src/main/demo/simulated-proxy.js';

export const MESH = 'default';
/** Outbounds per proxy: a few, as a typical service talks to a few others. */
const OUTBOUNDS_PER_PROXY = 3;
/** Streams per HTTP/2 connection: one channel per ~100 proxies keeps the client side cheap. */
const PROXIES_PER_CHANNEL = 100;
/** The Dataplane whose inbound the convergence measurement moves (created via the API, no proxy of its own). */
export const PROBE_DATAPLANE = 'load-probe';

export interface FleetOptions {
  /** `host:port` of meshdesk's ADS server. */
  ads: string;
  services: number;
  /** Dataplane names are `<prefix>-<index>`. */
  prefix?: string;
}

export function serviceName(index: number): string {
  return `svc-${index}`;
}

/**
 * The universal Dataplane of simulated proxy `index`: one inbound of service `svc-<index mod M>` on
 * its own loopback address (so no two endpoints share a socket), and outbounds to the next few
 * services on a port fixed per service, as transparent-proxy users get: proxies that talk to the
 * same service get the same outbound listener.
 */
export function loadDataplane(prefix: string, index: number, services: number) {
  const service = index % services;
  const outbound = Array.from({ length: Math.min(OUTBOUNDS_PER_PROXY, services - 1) }, (_, k) => (service + k + 1) % services);
  return {
    type: 'Dataplane',
    mesh: MESH,
    name: `${prefix}-${index}`,
    networking: {
      address: `127.1.${(index >> 8) & 255}.${index & 255}`,
      inbound: [{ port: 20001, servicePort: 8080, tags: { 'kuma.io/service': serviceName(service), 'kuma.io/protocol': 'http' } }],
      outbound: outbound.map((target) => ({ port: 10000 + target, tags: { 'kuma.io/service': serviceName(target) } })),
    },
  };
}

/**
 * A set of simulated proxies against one ADS server, sharing a few HTTP/2 connections. Knows which
 * proxies subscribe to which service's endpoints, to measure convergence.
 */
export class Fleet {
  readonly proxies: SimulatedProxy[] = [];
  readonly #options: Required<FleetOptions>;
  readonly #clients: grpc.Client[] = [];
  readonly #listeners = new Set<(update: EndpointsUpdate) => void>();

  constructor(options: FleetOptions) {
    this.#options = { prefix: 'load', ...options };
  }

  /** Opens `count` more streams at once and resolves with each one's time to first config, ms. */
  async connect(count: number): Promise<number[]> {
    const added: SimulatedProxy[] = [];
    for (let n = 0; n < count; n++) {
      const index = this.proxies.length;
      const dataplane = loadDataplane(this.#options.prefix, index, this.#options.services);
      const proxy = new SimulatedProxy(
        {
          node: {
            id: `${MESH}.${dataplane.name}`,
            cluster: dataplane.networking.inbound[0]!.tags['kuma.io/service'],
            user_agent_name: 'envoy',
            metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane) },
          },
          edsClusters: dataplane.networking.outbound.map((outbound) => outbound.tags['kuma.io/service']),
        },
        (update) => this.#listeners.forEach((listener) => listener(update)),
      );
      this.proxies.push(proxy);
      added.push(proxy);
      proxy.start(this.#client(index));
    }
    return Promise.all(added.map((proxy) => proxy.firstConfig));
  }

  /** The proxies that subscribe to the endpoints of `service`. */
  subscribersOf(service: string): SimulatedProxy[] {
    return this.proxies.filter((proxy) => proxy.spec.edsClusters.includes(service));
  }

  /**
   * Runs `change` and resolves with, for every proxy subscribed to `service`, the ms from just
   * before the change until it ACKed an EDS version it did not have before.
   */
  async convergence(service: string, change: () => Promise<void>): Promise<number[]> {
    const subscribers = this.subscribersOf(service);
    const before = new Map(subscribers.map((proxy) => [proxy, proxy.version(ENDPOINT_TYPE_URL)]));
    const converged = new Map<SimulatedProxy, number>();
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const startedAt = performance.now();
    const listener = ({ proxy, version, at }: EndpointsUpdate) => {
      if (!before.has(proxy) || converged.has(proxy) || before.get(proxy) === version) return;
      converged.set(proxy, at - startedAt);
      if (converged.size === subscribers.length) done();
    };
    this.#listeners.add(listener);
    try {
      await change();
      if (subscribers.length > 0) await all;
    } finally {
      this.#listeners.delete(listener);
    }
    return [...converged.values()];
  }

  close(): void {
    for (const proxy of this.proxies) proxy.close();
    for (const client of this.#clients) client.close();
    this.proxies.length = 0;
    this.#clients.length = 0;
  }

  #client(index: number): grpc.Client {
    const slot = Math.floor(index / PROXIES_PER_CHANNEL);
    if (!this.#clients[slot]) {
      const Client = grpc.makeGenericClientConstructor(adsServiceDefinition(), 'AggregatedDiscoveryService');
      // A local subchannel pool gives each client its own connection instead of one shared by all.
      this.#clients[slot] = new Client(this.#options.ads, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
    }
    return this.#clients[slot];
  }
}

/** The probe Dataplane: an inbound of `service` on a port that each round moves, so its endpoints change. */
export async function moveProbe(api: ControlPlaneApi, service: string, round: number): Promise<void> {
  await api.putDataplane({
    type: 'Dataplane',
    mesh: MESH,
    name: PROBE_DATAPLANE,
    networking: { address: '127.2.0.1', inbound: [{ port: 30000 + round, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'http' } }] },
  } as { mesh: string; name: string });
}
