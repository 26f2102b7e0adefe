import * as grpc from '@grpc/grpc-js';
import {
  adsServiceDefinition,
  type DeltaDiscoveryRequest,
  type DeltaDiscoveryResponse,
  type DiscoveryRequest,
  type DiscoveryResponse,
  type XdsRequest,
  type XdsResponse,
} from '../protocol/ads-service.js';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../../net/connection-limits.js';
import { CallbacksChain, type Callbacks } from './callbacks.js';
import { DeltaSubscription, coalesceDeltaRequests } from './delta-subscription.js';
import type { ConfigWatcher } from './snapshot-cache.js';
import { SharedPort, type SharedPortTls } from './shared-port.js';
import { SotwSubscription, coalesceSotwRequests } from './sotw-subscription.js';
import { AdsStream, MAX_SUBSCRIBED_NAMES_PER_STREAM, type AdsCall, type Logger, type StreamInfo, type StreamProtocol } from './stream.js';

/** Spec §7: keep each response under 4 MB (gRPC clients refuse larger messages by default). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface AdsServerOptions {
  /** Where configuration comes from: the server only ever watches it per node. */
  snapshots: ConfigWatcher;
  /** Run in this order on open and requests, in reverse on responses and close. */
  callbacks?: readonly Callbacks[];
  /** A response larger than this is not sent: the proxy keeps its last configuration. */
  maxResponseBytes?: number;
  /** A stream subscribing to more resource names than this, all types together, is ended with RESOURCE_EXHAUSTED. */
  maxSubscribedNames?: number;
  /** Where errors of notification hooks go (they cannot close a stream). Defaults to console. */
  logger?: Logger;
  /** A connection without any stream for this long is closed; an ADS client always has its stream open. */
  maxConnectionIdleMs?: number;
  /** Deadlines and bounds for the port's connections (DEFAULT_CONNECTION_LIMITS for any left out). */
  connections?: Partial<ConnectionLimits>;
}

/** The ADS server could not start: says where and why. */
export class AdsServerError extends Error {
  override readonly name = 'AdsServerError';
}

export const DEFAULT_MAX_CONNECTION_IDLE_MS = 10_000;

/** How long stop() lets streams finish before cutting them off. */
const SHUTDOWN_GRACE_MS = 2_000;

const SOTW: StreamProtocol<DiscoveryRequest, DiscoveryResponse> = {
  name: 'sotw',
  subscription: (typeUrl) => new SotwSubscription(typeUrl),
  coalesce: coalesceSotwRequests,
  namesSubscribed: (request) => request.resource_names.length,
};
const DELTA: StreamProtocol<DeltaDiscoveryRequest, DeltaDiscoveryResponse> = {
  name: 'delta',
  subscription: (typeUrl) => new DeltaSubscription(typeUrl),
  coalesce: coalesceDeltaRequests,
  namesSubscribed: (request) => request.resource_names_subscribe.length,
};

type LiveStream = Pick<AdsStream<XdsRequest, XdsResponse>, 'id' | 'end' | 'drained' | 'info'>;

/**
 * Envoy's Aggregated Discovery Service over gRPC, both variants on one server: State of the World
 * (StreamAggregatedResources) and incremental (DeltaAggregatedResources), through the same
 * callbacks and snapshots. Knows nothing of meshes.
 */
export class AdsServer {
  readonly #options: Required<AdsServerOptions>;
  readonly #callbacks: CallbacksChain;
  readonly #streams = new Map<number, LiveStream>();
  #lastStreamId = 0;
  #server: grpc.Server | undefined;
  #port: SharedPort | undefined;

  constructor(options: AdsServerOptions) {
    this.#options = {
      callbacks: [],
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
      maxSubscribedNames: MAX_SUBSCRIBED_NAMES_PER_STREAM,
      logger: console,
      maxConnectionIdleMs: DEFAULT_MAX_CONNECTION_IDLE_MS,
      connections: {},
      ...options,
    };
    this.#callbacks = new CallbacksChain(this.#options.callbacks);
  }

  /**
   * Listens on host:port (port 0 picks a free one) and resolves with the bound port. Plaintext
   * gRPC is always served; with `tls`, the same port also takes TLS, carrying gRPC or HTTP/1.1
   * (shared-port.ts), as Kuma's DP server port does for kuma-dp.
   */
  async start({ host = '127.0.0.1', port, tls }: { host?: string; port: number; tls?: SharedPortTls }): Promise<number> {
    if (this.#server) throw new AdsServerError('the ADS server is already started');
    // A client that cancels its streams and half-closes the connection is never closed by grpc-js
    // (one connection left in CLOSE-WAIT per such burst): a connection idle this long is.
    const server = new grpc.Server({ 'grpc.max_connection_idle_ms': this.#options.maxConnectionIdleMs });
    server.addService(adsServiceDefinition(), {
      StreamAggregatedResources: (call: AdsCall<DiscoveryRequest, DiscoveryResponse>) => this.#openStream(call, SOTW),
      DeltaAggregatedResources: (call: AdsCall<DeltaDiscoveryRequest, DeltaDiscoveryResponse>) => this.#openStream(call, DELTA),
    });
    // TLS, when any, ends at the shared port: grpc-js gets every connection as plaintext HTTP/2.
    const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    try {
      const limits = { ...DEFAULT_CONNECTION_LIMITS, ...this.#options.connections };
      const listening = await SharedPort.listen({ host, port, grpc: (connection) => injector.injectConnection(connection), tls, limits });
      this.#server = server;
      this.#port = listening.port;
      return listening.boundPort;
    } catch (error) {
      server.forceShutdown();
      const reason = error instanceof Error && 'code' in error && error.code === 'EADDRINUSE'
        ? `port ${port} is already in use (is another meshdesk running?); choose another port`
        : error instanceof Error ? error.message : String(error);
      throw new AdsServerError(`cannot start the ADS server on ${host.includes(':') ? `[${host}]` : host}:${port}: ${reason}`, { cause: error });
    }
  }

  /**
   * Ends every live stream with UNAVAILABLE (proxies reconnect to the next control plane), waits a
   * short grace period for them to finish and their onStreamClosed hooks to run, then forces the rest.
   */
  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    this.#port?.close();
    this.#port = undefined;
    const streams = [...this.#streams.values()];
    for (const stream of streams) stream.end({ code: grpc.status.UNAVAILABLE, details: 'control plane shutting down' }, { shutdown: true });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), SHUTDOWN_GRACE_MS)));
    const shutdown = new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    const finished = await Promise.race([Promise.all([shutdown, ...streams.map((stream) => stream.drained())]), deadline]);
    clearTimeout(timer);
    if (finished === 'deadline') server.forceShutdown();
  }

  /** Ends one live stream with this status (e.g. UNAUTHENTICATED once its token is revoked); false if it is gone. */
  closeStream(streamId: number, finalStatus: { code: grpc.status; details: string }): boolean {
    const stream = this.#streams.get(streamId);
    stream?.end(finalStatus);
    return stream !== undefined;
  }

  /** Connections on the port now: served (handed to gRPC or HTTP) and pending (not yet spoken). */
  get connections(): { served: number; pending: number } {
    return this.#port?.connections ?? { served: 0, pending: 0 };
  }

  get streamCount(): number {
    return this.#streams.size;
  }

  /** Every live stream: node, subscriptions, what was sent, acked and rejected. */
  streams(): StreamInfo[] {
    return [...this.#streams.values()].map((stream) => stream.info());
  }

  #openStream<Request extends XdsRequest, Response extends XdsResponse>(
    call: AdsCall<Request, Response>,
    protocol: StreamProtocol<Request, Response>,
  ): void {
    const stream = new AdsStream({
      id: ++this.#lastStreamId,
      call,
      protocol,
      watcher: this.#options.snapshots,
      callbacks: this.#callbacks,
      maxResponseBytes: this.#options.maxResponseBytes,
      maxSubscribedNames: this.#options.maxSubscribedNames,
      logger: this.#options.logger,
      onDone: (done) => this.#streams.delete(done.id),
    });
    this.#streams.set(stream.id, stream);
  }
}
