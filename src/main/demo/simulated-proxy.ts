import type * as grpc from '@grpc/grpc-js';
import type { DiscoveryRequest, DiscoveryResponse, Node } from '../xds/protocol/ads-service.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL } from '../xds/protocol/type-urls.js';

type AdsCall = grpc.ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;

/** What a simulated proxy is: its node and the EDS clusters it will ask for once CDS arrived. */
export interface SimulatedProxySpec {
  node: Node;
  /** Names of its EDS clusters (its outbound services): Envoy asks for exactly these after CDS. */
  edsClusters: readonly string[];
}

/** A new EDS version that arrived after the first configuration, ACKed at `at` (performance.now() ms). */
export interface EndpointsUpdate {
  proxy: SimulatedProxy;
  version: string;
  at: number;
}

/**
 * One Envoy-like ADS stream, as cheap as a client can be: it never decodes a resource. It asks
 * the way Envoy does (CDS wildcard; on CDS, EDS for its clusters; once EDS arrived, LDS wildcard),
 * ACKs every response at once, and is configured when CDS, EDS and LDS are all ACKed. meshdesk
 * inlines routes in the listeners of Envoy proxies, so an Envoy never asks for RDS there, and
 * neither does this one: "every type it subscribed to" is these three.
 */
export class SimulatedProxy {
  readonly spec: SimulatedProxySpec;
  /** performance.now() ms when the stream was opened, then when the first configuration was complete. */
  openedAt = 0;
  configuredAt: number | undefined;
  readonly #versions = new Map<string, string>();
  readonly #onEndpoints: (update: EndpointsUpdate) => void;
  readonly #watchers = new Set<(response: DiscoveryResponse) => void>();
  #call: AdsCall | undefined;
  #configured!: (ms: number) => void;
  #failed!: (error: Error) => void;
  /** Resolves with the time to first config in ms; rejects if the stream ends first. */
  readonly firstConfig: Promise<number>;

  constructor(spec: SimulatedProxySpec, onEndpoints: (update: EndpointsUpdate) => void = () => {}) {
    this.spec = spec;
    this.#onEndpoints = onEndpoints;
    this.firstConfig = new Promise((resolve, reject) => {
      this.#configured = resolve;
      this.#failed = reject;
    });
    this.firstConfig.catch(() => {}); // whoever awaits it sees the failure; nobody awaiting is fine too
  }

  get id(): string {
    return this.spec.node.id;
  }

  /** The version of a type it ACKed last, if any. */
  version(typeUrl: string): string | undefined {
    return this.#versions.get(typeUrl);
  }

  /** Opens the stream on `client` (a client of the ADS service, possibly shared by many proxies). */
  start(client: grpc.Client): void {
    this.openedAt = performance.now();
    const call = (client as unknown as Record<string, () => AdsCall>).StreamAggregatedResources!.call(client);
    this.#call = call;
    call.on('data', (response: DiscoveryResponse) => this.#onResponse(response));
    call.on('error', (error: Error) => this.#failed(new Error(`proxy "${this.id}": stream failed: ${error.message}`)));
    call.on('end', () => this.#failed(new Error(`proxy "${this.id}": the server ended the stream before the first configuration`)));
    this.#request(CLUSTER_TYPE_URL, [], '', '', this.spec.node);
  }

  /** Calls `watcher` with every response, once it is ACKed; returns what stops it. */
  watch(watcher: (response: DiscoveryResponse) => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  close(): void {
    this.#call?.cancel();
    this.#call = undefined;
  }

  #onResponse(response: DiscoveryResponse): void {
    const { type_url: typeUrl, version_info: version, nonce } = response;
    const first = !this.#versions.has(typeUrl);
    this.#versions.set(typeUrl, version);
    this.#request(typeUrl, this.#names(typeUrl), version, nonce);
    for (const watcher of this.#watchers) watcher(response);
    if (typeUrl === CLUSTER_TYPE_URL && first) {
      if (this.spec.edsClusters.length > 0) this.#request(ENDPOINT_TYPE_URL, [...this.spec.edsClusters], '', '');
      else this.#request(LISTENER_TYPE_URL, [], '', '');
    }
    if (typeUrl === ENDPOINT_TYPE_URL && first) this.#request(LISTENER_TYPE_URL, [], '', '');
    if (typeUrl === LISTENER_TYPE_URL && first) {
      this.configuredAt = performance.now();
      this.#configured(this.configuredAt - this.openedAt);
    }
    if (typeUrl === ENDPOINT_TYPE_URL && !first && this.configuredAt !== undefined) {
      this.#onEndpoints({ proxy: this, version, at: performance.now() });
    }
  }

  #names(typeUrl: string): string[] {
    return typeUrl === ENDPOINT_TYPE_URL ? [...this.spec.edsClusters] : [];
  }

  #request(typeUrl: string, names: string[], version: string, nonce: string, node?: Node): void {
    this.#call?.write({
      version_info: version,
      ...(node && { node }),
      resource_names: names,
      type_url: typeUrl,
      response_nonce: nonce,
    });
  }
}
