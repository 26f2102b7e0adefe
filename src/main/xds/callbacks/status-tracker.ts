import type { Metrics } from '../../metrics/metrics.js';
import { XDS_TYPE_URLS, shortTypeName } from '../protocol/type-urls.js';
import type {
  Callbacks,
  ResponseDroppedEvent,
  StreamClosedEvent,
  StreamOpenEvent,
  StreamRequestEvent,
  StreamResponseEvent,
} from '../server/callbacks.js';
import { now, type ProxyTimeline } from '../status/proxy-timeline.js';
import type { ProxyStatus, TypeStatus } from '../../../shared/api-types.js';
import type { XdsProtocol } from '../protocol/ads-service.js';

export type { ProxyStatus, TypeStatus };

export interface StatusTrackerOptions {
  timeline: ProxyTimeline;
  metrics: Pick<Metrics, 'xdsDelivery'>;
}

interface OpenStream {
  peer: string;
  protocol: XdsProtocol;
  openedAt: number;
  /** Known from the stream's first request on. */
  proxyId?: string;
}

interface TypeState extends TypeStatus {
  /** xds_delivery is observed once per version and stream: a re-send of the same version is not a new delivery. */
  deliveredVersion?: string;
}

interface ProxyState extends Omit<ProxyStatus, 'types'> {
  types: Map<string, TypeState>;
}

/**
 * Kuma's DataplaneStatusTracker: per proxy and type, the versions and nonces sent, ACKs and NACKs
 * (with the NACK's error detail), counts and times, and whether the proxy is online. Every
 * response, ACK, NACK and dropped response also goes on the proxy's timeline, and the time from a
 * snapshot being set (the sync tracker's `changed` tick carrying that version) to its ACK is
 * observed as `xds_delivery`.
 *
 * A stale request changes nothing here, as it changes nothing in the stream. A proxy's status
 * outlives its stream (it shows as offline) until `forget` is called once its Dataplane is
 * deregistered, so memory stays bounded by the proxies that still exist.
 */
export class StatusTracker implements Callbacks {
  readonly #timeline: ProxyTimeline;
  readonly #metrics: StatusTrackerOptions['metrics'];
  readonly #streams = new Map<number, OpenStream>();
  readonly #proxies = new Map<string, ProxyState>();

  constructor({ timeline, metrics }: StatusTrackerOptions) {
    this.#timeline = timeline;
    this.#metrics = metrics;
  }

  onStreamOpen({ streamId, peer, protocol }: StreamOpenEvent): void {
    this.#streams.set(streamId, { peer, protocol, openedAt: now() });
  }

  onStreamRequest({ streamId, node, request, classification }: StreamRequestEvent): void {
    const { kind, typeUrl, version } = classification;
    if (kind === 'stale') return;
    const proxy = this.#attach(streamId, node.id);
    if (!proxy) return;
    const type = typeState(proxy, typeUrl);
    const at = now();
    if (kind === 'ack') {
      type.lastAcked = { version, nonce: request.response_nonce, at };
      type.counts.acks += 1;
      this.#timeline.record(proxy.proxyId, { kind: 'ack', at, typeUrl, version, nonce: request.response_nonce });
      this.#observeDelivery(proxy, type, at);
    } else if (kind === 'nack') {
      // A NACK echoes the latest nonce, so the version it rejects is the one last sent.
      const rejectedVersion = type.lastSent?.version ?? '';
      const error = request.error_detail?.message ?? '';
      type.lastNack = { rejectedVersion, acceptedVersion: version, nonce: request.response_nonce, error, at };
      type.counts.nacks += 1;
      this.#timeline.record(proxy.proxyId, { kind: 'nack', at, typeUrl, version: rejectedVersion, nonce: request.response_nonce, error });
    }
  }

  onStreamResponse({ streamId, response, version }: StreamResponseEvent): void {
    const proxy = this.#proxyOfKnownStream(streamId);
    if (!proxy) return;
    const { type_url: typeUrl, nonce } = response;
    const type = typeState(proxy, typeUrl);
    const at = now();
    type.lastSent = { version, nonce, resources: response.resources.length, at };
    type.counts.responses += 1;
    this.#timeline.record(proxy.proxyId, { kind: 'response', at, typeUrl, version, nonce, resources: response.resources.length });
  }

  onResponseDropped({ streamId, typeUrl, version, error }: ResponseDroppedEvent): void {
    const proxy = this.#proxyOfKnownStream(streamId);
    if (!proxy) return;
    const type = typeState(proxy, typeUrl);
    const at = now();
    type.lastDropped = { version, error: error.message, at };
    type.counts.dropped += 1;
    this.#timeline.record(proxy.proxyId, { kind: 'response-dropped', at, typeUrl, version, error: error.message });
  }

  onStreamClosed({ streamId }: StreamClosedEvent): void {
    // A proxy that already reconnected on another stream stays online.
    const proxy = this.#proxyOfKnownStream(streamId);
    this.#streams.delete(streamId);
    if (!proxy) return;
    const at = now();
    proxy.online = false;
    proxy.since = at;
    proxy.stream.closedAt = at;
  }

  status(proxyId: string): ProxyStatus | undefined {
    const proxy = this.#proxies.get(proxyId);
    return proxy && publicStatus(proxy);
  }

  /** Every proxy known, online or not, by node id. */
  proxies(): ProxyStatus[] {
    return [...this.#proxies.values()].map(publicStatus).sort((a, b) => a.proxyId.localeCompare(b.proxyId));
  }

  /** Drops a proxy's status; to be called once its Dataplane is deregistered for good. */
  forget(proxyId: string): void {
    this.#proxies.delete(proxyId);
    for (const stream of this.#streams.values()) if (stream.proxyId === proxyId) delete stream.proxyId;
  }

  /**
   * The proxy of a stream, known from its first request on, which brings the proxy online with a
   * fresh set of types. Undefined for a stream another stream of the same proxy has replaced.
   */
  #attach(streamId: number, proxyId: string): ProxyState | undefined {
    const stream = this.#streams.get(streamId) ?? { peer: '', protocol: 'sotw', openedAt: now() };
    this.#streams.set(streamId, stream);
    if (stream.proxyId !== undefined) return this.#proxyOfKnownStream(streamId);
    stream.proxyId = proxyId;
    const proxy: ProxyState = {
      proxyId,
      online: true,
      since: now(),
      connections: (this.#proxies.get(proxyId)?.connections ?? 0) + 1,
      stream: { id: streamId, peer: stream.peer, openedAt: stream.openedAt },
      protocol: stream.protocol,
      types: new Map(),
    };
    this.#proxies.set(proxyId, proxy);
    return proxy;
  }

  /** The proxy whose current stream this is; events of a replaced stream change nothing. */
  #proxyOfKnownStream(streamId: number): ProxyState | undefined {
    const proxyId = this.#streams.get(streamId)?.proxyId;
    const proxy = proxyId === undefined ? undefined : this.#proxies.get(proxyId);
    return proxy?.stream.id === streamId ? proxy : undefined;
  }

  /**
   * ACK time minus the time the acked version was set: the latest `changed` tick of this proxy
   * carrying that version for the type. A tick from before this stream opened set a snapshot for an
   * earlier connection, so re-delivering it on reconnect is not measured.
   */
  #observeDelivery(proxy: ProxyState, type: TypeState, ackedAt: number): void {
    const version = type.lastAcked!.version;
    if (type.deliveredVersion === version) return;
    const events = this.#timeline.events(proxy.proxyId);
    for (let index = events.length - 1; index >= 0; index--) {
      const event = events[index]!;
      if (event.kind !== 'tick' || event.versions?.[type.typeUrl] !== version) continue;
      if (event.at < proxy.stream.openedAt) return;
      type.deliveredVersion = version;
      this.#metrics.xdsDelivery.observe({ type: type.type }, (ackedAt - event.at) / 1000);
      return;
    }
  }
}

function typeState(proxy: ProxyState, typeUrl: string): TypeState {
  let type = proxy.types.get(typeUrl);
  if (!type) {
    type = { typeUrl, type: shortTypeName(typeUrl), counts: { responses: 0, acks: 0, nacks: 0, dropped: 0 } };
    proxy.types.set(typeUrl, type);
  }
  return type;
}

/** A copy for callers (they must not change the tracker's state), types in push order. */
function publicStatus(proxy: ProxyState): ProxyStatus {
  const types = [...proxy.types.values()]
    .sort((a, b) => pushRank(a.typeUrl) - pushRank(b.typeUrl))
    .map(({ deliveredVersion: _delivered, ...type }) => structuredClone(type));
  return { ...proxy, stream: { ...proxy.stream }, types };
}

function pushRank(typeUrl: string): number {
  const rank = (XDS_TYPE_URLS as readonly string[]).indexOf(typeUrl);
  return rank === -1 ? XDS_TYPE_URLS.length : rank;
}
