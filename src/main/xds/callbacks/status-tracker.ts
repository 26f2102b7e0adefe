import { status as grpcStatus } from '@grpc/grpc-js';
import type { Metrics } from '../../metrics/metrics.js';
import { CLIENT_TEXT_LIMITS, clipClientText } from '../protocol/client-text.js';
import { XDS_TYPE_URLS, shortTypeName } from '../protocol/type-urls.js';
import type {
  Callbacks,
  ResponseDroppedEvent,
  StreamClosedEvent,
  StreamEnding as ServerStreamEnding,
  StreamOpenEvent,
  StreamRequestEvent,
  StreamResponseEvent,
} from '../server/callbacks.js';
import type { DepartedProxies } from '../status/departed-proxies.js';
import { now, type ProxyEvent, type ProxyTimeline } from '../status/proxy-timeline.js';
import type { ProxyConnectionState, ProxyStatus, TypeStatus } from '../../../shared/api-types.js';
import { isRefusal, type StreamEnding, type WithheldResource } from '../../../shared/proxy-events.js';
import type { XdsProtocol } from '../protocol/ads-service.js';

export type { ProxyConnectionState, ProxyStatus, TypeStatus };

export interface StatusTrackerOptions {
  timeline: ProxyTimeline;
  metrics: Pick<Metrics, 'xdsDelivery'>;
  /** Where proxies that left for good go; without it (tests of other concerns) nothing departs. */
  departures?: Pick<DepartedProxies, 'depart' | 'returned' | 'get'>;
}

/**
 * Types tracked per proxy. Envoy asks for about ten; the stream refuses more than its own bound
 * (MAX_TYPE_URLS_PER_STREAM), and this one holds whatever feeds the tracker.
 */
const TYPES_PER_PROXY = 32;

interface OpenStream {
  peer: string;
  protocol: XdsProtocol;
  openedAt: number;
  /** Known from the lifecycle's `stream-opened` or the stream's first request that reaches here. */
  proxyId?: string;
}

interface TypeState extends TypeStatus {
  /** xds_delivery is observed once per version and stream: a re-send of the same version is not a new delivery. */
  deliveredVersion?: string;
}

interface ProxyState extends Omit<ProxyStatus, 'types' | 'departure'> {
  types: Map<string, TypeState>;
  /** A Dataplane answered to its node id when last heard of: its status stays while that Dataplane does. */
  hasDataplane: boolean;
}

export type StateListener = (status: ProxyStatus) => void;

/**
 * Kuma's DataplaneStatusTracker: per proxy and type, the versions and nonces sent, ACKs and NACKs
 * (with the NACK's error detail, clipped), counts and times, whether the proxy is online, and its
 * state in one word (ProxyConnectionState), from its stream's hooks and its timeline's events
 * (the lifecycle's registration and post-create wait, the sync tracker's ticks). Every stream
 * that sent a node id is listed, refused ones included, with how it ended; every response, ACK,
 * NACK, dropped response and stream close goes on the proxy's timeline, and the time from a
 * snapshot being set (the sync tracker's `changed` tick carrying that version) to its ACK is
 * observed as `xds_delivery`.
 *
 * A stale request changes nothing here, as it changes nothing in the stream. A proxy's status
 * outlives its stream (offline) while its Dataplane exists; once the proxy has left for good (its
 * Dataplane deregistered or deleted, or it never had one) it departs (DepartedProxies), which
 * bounds how many are kept and for how long, and calls `forget`.
 */
export class StatusTracker implements Callbacks {
  readonly #timeline: ProxyTimeline;
  readonly #metrics: StatusTrackerOptions['metrics'];
  readonly #departures: StatusTrackerOptions['departures'];
  readonly #streams = new Map<number, OpenStream>();
  readonly #proxies = new Map<string, ProxyState>();
  readonly #listeners = new Set<StateListener>();

  constructor({ timeline, metrics, departures }: StatusTrackerOptions) {
    this.#timeline = timeline;
    this.#metrics = metrics;
    this.#departures = departures;
    timeline.listen((proxyId, event) => this.#onTimelineEvent(proxyId, event));
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
    if (!type) return;
    const at = now();
    if (kind === 'ack') {
      type.lastAcked = { version, nonce: request.response_nonce, at };
      type.counts.acks += 1;
      this.#timeline.record(proxy.proxyId, { kind: 'ack', at, typeUrl, version, nonce: request.response_nonce });
      this.#observeDelivery(proxy, type, at);
    } else if (kind === 'nack') {
      // A NACK echoes the latest nonce, so the version it rejects is the one last sent.
      const rejectedVersion = type.lastSent?.version ?? '';
      const error = clipClientText(request.error_detail?.message ?? '', CLIENT_TEXT_LIMITS.message);
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
    if (!type) return;
    const at = now();
    type.lastSent = { version, nonce, resources: response.resources.length, at };
    type.counts.responses += 1;
    this.#timeline.record(proxy.proxyId, { kind: 'response', at, typeUrl, version, nonce, resources: response.resources.length });
    this.#setState(proxy, 'configured');
  }

  onResponseDropped({ streamId, typeUrl, version, error }: ResponseDroppedEvent): void {
    const proxy = this.#proxyOfKnownStream(streamId);
    if (!proxy) return;
    const type = typeState(proxy, typeUrl);
    if (!type) return;
    const at = now();
    type.lastDropped = { version, error: error.message, at };
    type.counts.dropped += 1;
    this.#timeline.record(proxy.proxyId, { kind: 'response-dropped', at, typeUrl, version, error: error.message });
  }

  /**
   * Records how the stream ended on its proxy's timeline, for every stream that sent a node id. The
   * proxy goes offline (or refused) unless it already reconnected on another stream; a stream
   * refused before it was attached (a wrong token, a node id already connected or naming no
   * Dataplane) makes a listed proxy of its own, unless that proxy is online on another stream.
   */
  onStreamClosed({ streamId, node, ending }: StreamClosedEvent): void {
    const stream = this.#streams.get(streamId);
    this.#streams.delete(streamId);
    if (!node?.id) return; // closed before saying who it is: nothing to list it under
    const at = now();
    const proxyId = stream?.proxyId ?? clipClientText(node.id, CLIENT_TEXT_LIMITS.nodeId);
    const told = endingOf(ending);
    this.#timeline.record(proxyId, { kind: 'stream-closed', at, streamId, ending: told });
    let proxy = this.#proxies.get(proxyId);
    // Stream ids start again at each run: a restored status never belongs to this run's streams.
    if (proxy?.stream.id !== streamId || proxy.beforeRestart) {
      if (proxy?.online) return; // the proxy is served on another stream; the refusal is on its timeline
      proxy = {
        proxyId,
        online: false,
        since: at,
        state: 'offline',
        connections: (proxy?.connections ?? 0) + 1,
        stream: { id: streamId, peer: stream?.peer ?? '', openedAt: stream?.openedAt ?? at },
        protocol: stream?.protocol ?? 'sotw',
        types: new Map(),
        hasDataplane: proxy?.hasDataplane ?? false,
      };
      this.#proxies.set(proxyId, proxy);
    }
    proxy.online = false;
    proxy.since = at;
    proxy.stream.closedAt = at;
    delete proxy.waitEndsAt;
    if (isRefusal(told)) {
      proxy.refusal = { ...told, at };
      this.#setState(proxy, 'refused', true);
    } else {
      delete proxy.refusal;
      this.#setState(proxy, 'offline', true);
    }
    if (!proxy.hasDataplane) this.#departures?.depart(proxyId);
  }

  /** The Dataplane of this node id was deleted (through the API, say): an offline proxy has left for good. */
  dataplaneDeleted(proxyId: string): void {
    const proxy = this.#proxies.get(proxyId);
    if (!proxy) return;
    proxy.hasDataplane = false;
    delete proxy.deregistrationDueAt;
    if (!proxy.online) this.#departures?.depart(proxyId);
  }

  status(proxyId: string): ProxyStatus | undefined {
    const proxy = this.#proxies.get(proxyId);
    return proxy && this.#publicStatus(proxy);
  }

  /** Every proxy known, online or not, departed ones included, by node id. */
  proxies(): ProxyStatus[] {
    return [...this.#proxies.values()].map((proxy) => this.#publicStatus(proxy)).sort((a, b) => a.proxyId.localeCompare(b.proxyId));
  }

  /** Calls `listener` each time a proxy's state changes (not on every event: a tick that changes nothing is silent). */
  onStateChange(listener: StateListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Puts back statuses an earlier run stored, before any stream opens: each is offline (or
   * refused) as it stood, marked as from before the restart at `restartedAt`. `hasDataplane` says
   * whether a Dataplane answers to its node id now.
   */
  restore(statuses: ReadonlyArray<{ status: ProxyStatus; hasDataplane: boolean }>, restartedAt: number): void {
    for (const { status, hasDataplane } of statuses) {
      if (this.#proxies.has(status.proxyId)) continue;
      const { types, departure: _departure, waitEndsAt: _wait, deregistrationDueAt: _due, ...rest } = status;
      this.#proxies.set(status.proxyId, {
        ...rest,
        online: false,
        state: status.state === 'refused' ? 'refused' : 'offline',
        types: new Map(types.map((type) => [type.typeUrl, type])),
        hasDataplane,
        beforeRestart: { restartedAt },
      });
    }
  }

  /** Drops a proxy's status, once its departure's retention is over. */
  forget(proxyId: string): void {
    this.#proxies.delete(proxyId);
    for (const stream of this.#streams.values()) if (stream.proxyId === proxyId) delete stream.proxyId;
  }

  /** What the lifecycle and the sync tracker record says about where the proxy stands. */
  #onTimelineEvent(proxyId: string, event: ProxyEvent): void {
    if (event.kind === 'stream-opened') {
      this.#departures?.returned(proxyId);
      this.#attach(event.streamId, proxyId);
      return;
    }
    if (event.kind === 'deregistered') {
      const proxy = this.#proxies.get(proxyId);
      if (proxy) {
        proxy.hasDataplane = false;
        delete proxy.deregistrationDueAt;
      }
      // A leftover of an earlier run is departed too: its timeline and history then go in time.
      if (!proxy?.online) this.#departures?.depart(proxyId);
      return;
    }
    const proxy = this.#proxies.get(proxyId);
    if (!proxy) return;
    switch (event.kind) {
      case 'registered':
        proxy.hasDataplane = true;
        break;
      case 'post-create-wait-started':
        if (!proxy.online) break;
        proxy.waitEndsAt = event.endsAt;
        this.#setState(proxy, 'waiting');
        break;
      case 'post-create-wait':
        delete proxy.waitEndsAt;
        if (proxy.state === 'waiting') this.#setState(proxy, 'connecting');
        break;
      case 'tick':
        if (!proxy.online) break;
        if (event.result === 'dataplane-not-found') {
          proxy.hasDataplane = false;
          this.#setState(proxy, 'no-dataplane');
        } else if (event.result === 'generated' || event.result === 'changed') {
          proxy.hasDataplane = true;
          const sent = [...proxy.types.values()].some((type) => type.lastSent !== undefined);
          const staleChanged = this.#setStale(proxy, event.at, event.withheld?.length ? withheldReason(event.withheld) : undefined);
          this.#setState(proxy, sent ? 'configured' : 'connecting', staleChanged);
        } else if (event.result === 'error') {
          if (this.#setStale(proxy, event.at, `its configuration could not be generated: ${event.detail ?? 'an error'}`)) this.#notify(proxy);
        }
        break;
      case 'deregistration-scheduled':
        if (!proxy.online) proxy.deregistrationDueAt = event.dueAt;
        break;
    }
  }

  /**
   * The proxy of a stream, attached at the lifecycle's `stream-opened` (or, without a lifecycle, its
   * first request), which brings the proxy online with a fresh set of types. Undefined for a
   * stream another stream of the same proxy has replaced.
   */
  #attach(streamId: number, proxyId: string): ProxyState | undefined {
    const stream = this.#streams.get(streamId) ?? { peer: '', protocol: 'sotw', openedAt: now() };
    this.#streams.set(streamId, stream);
    if (stream.proxyId !== undefined) return this.#proxyOfKnownStream(streamId);
    stream.proxyId = proxyId;
    const previous = this.#proxies.get(proxyId);
    const proxy: ProxyState = {
      proxyId,
      online: true,
      since: now(),
      state: 'connecting',
      connections: (previous?.connections ?? 0) + 1,
      stream: { id: streamId, peer: stream.peer, openedAt: stream.openedAt },
      protocol: stream.protocol,
      types: new Map(),
      hasDataplane: previous?.hasDataplane ?? false,
    };
    this.#proxies.set(proxyId, proxy);
    this.#notify(proxy);
    return proxy;
  }

  /** The proxy whose current stream this is; events of a replaced stream change nothing. */
  #proxyOfKnownStream(streamId: number): ProxyState | undefined {
    const proxyId = this.#streams.get(streamId)?.proxyId;
    const proxy = proxyId === undefined ? undefined : this.#proxies.get(proxyId);
    return proxy?.stream.id === streamId ? proxy : undefined;
  }

  /** Marks the proxy stale since the first tick that left it so (or clears it, with no reason); true when that changed what is shown. */
  #setStale(proxy: ProxyState, at: number, reason: string | undefined): boolean {
    if (reason === undefined) {
      if (!proxy.stale) return false;
      delete proxy.stale;
      return true;
    }
    if (proxy.stale?.reason === reason) return false;
    proxy.stale = { since: proxy.stale?.since ?? at, reason };
    return true;
  }

  #setState(proxy: ProxyState, state: ProxyConnectionState, always = false): void {
    if (proxy.state === state && !always) return;
    proxy.state = state;
    if (state !== 'offline') delete proxy.deregistrationDueAt;
    this.#notify(proxy);
  }

  #notify(proxy: ProxyState): void {
    if (this.#listeners.size === 0) return;
    const status = this.#publicStatus(proxy);
    for (const listener of this.#listeners) listener(status);
  }

  /** A copy for callers (they must not change the tracker's state), types in push order. */
  #publicStatus(proxy: ProxyState): ProxyStatus {
    const { types: byUrl, hasDataplane: _hasDataplane, ...rest } = proxy;
    const types = [...byUrl.values()]
      .sort((a, b) => pushRank(a.typeUrl) - pushRank(b.typeUrl))
      .map(({ deliveredVersion: _delivered, ...type }) => structuredClone(type));
    const departure = this.#departures?.get(proxy.proxyId);
    return {
      ...rest,
      stream: { ...proxy.stream },
      ...(proxy.refusal && { refusal: { ...proxy.refusal } }),
      ...(proxy.stale && { stale: { ...proxy.stale } }),
      types,
      ...(departure && { departure }),
    };
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

/** Why a tick left the proxy stale: the first resource withheld, and how many more. */
function withheldReason(withheld: readonly WithheldResource[]): string {
  const [first] = withheld;
  const more = withheld.length > 1 ? ` (and ${withheld.length - 1} more resource${withheld.length > 2 ? 's' : ''})` : '';
  return `${first!.reason}${more}; ${first!.kept ? 'the proxy keeps the one sent before' : 'the proxy has none'}`;
}

/** The type's state, created on first use; undefined past the bound of types per proxy. */
function typeState(proxy: ProxyState, typeUrl: string): TypeState | undefined {
  let type = proxy.types.get(typeUrl);
  if (!type) {
    if (proxy.types.size >= TYPES_PER_PROXY) return undefined;
    const kept = clipClientText(typeUrl, CLIENT_TEXT_LIMITS.typeUrl);
    type = { typeUrl: kept, type: shortTypeName(kept), counts: { responses: 0, acks: 0, nacks: 0, dropped: 0 } };
    proxy.types.set(typeUrl, type);
  }
  return type;
}

/** The ending as the timeline and the UI spell it: the status code by its name too. */
function endingOf(ending: ServerStreamEnding): StreamEnding {
  if (ending.by === 'proxy') return ending;
  const message = clipClientText(ending.details, CLIENT_TEXT_LIMITS.message); // it may quote what the proxy sent
  return { by: 'control-plane', code: ending.code, codeName: grpcStatus[ending.code] ?? String(ending.code), message, ...(ending.shutdown && { shutdown: true }) };
}

function pushRank(typeUrl: string): number {
  const rank = (XDS_TYPE_URLS as readonly string[]).indexOf(typeUrl);
  return rank === -1 ? XDS_TYPE_URLS.length : rank;
}
