import { status, type ServerDuplexStream } from '@grpc/grpc-js';
import { UndecodableRequest, discoveryResponseSize, type Node, type XdsProtocol, type XdsRequest, type XdsResponse } from '../protocol/ads-service.js';
import { CLIENT_TEXT_LIMITS } from '../protocol/client-text.js';
import { XDS_TYPE_URLS, shortTypeName } from '../protocol/type-urls.js';
import { StreamError, statusOf, type CallbacksChain, type StreamEnding } from './callbacks.js';
import type { Snapshot } from './snapshot.js';
import type { ConfigWatcher } from './snapshot-cache.js';
import { withClippedErrorDetail, type Subscription } from './subscription.js';
import { EVENT_LOOP_SLICE } from './time-slice.js';

export type AdsCall<Request extends XdsRequest = XdsRequest, Response extends XdsResponse = XdsResponse> = ServerDuplexStream<
  Request | UndecodableRequest,
  Response
>;

export interface Logger {
  error(message: string, ...details: unknown[]): void;
}

/** One protocol's part of a stream: which method it serves, and its per-type rules. */
export interface StreamProtocol<Request extends XdsRequest, Response extends XdsResponse> {
  name: XdsProtocol;
  subscription(typeUrl: string): Subscription<Request, Response>;
  /**
   * One request saying what `older` and `newer`, of one type and both not yet handled, say
   * together: the stream keeps at most one waiting request per type (see AdsStream.#waiting).
   */
  coalesce(older: Request, newer: Request): Request;
  /** How many resource names the request subscribes to (SotW: all it wants; delta: the ones it adds). */
  namesSubscribed(request: Request): number;
}

export interface AdsStreamOptions<Request extends XdsRequest, Response extends XdsResponse> {
  id: number;
  call: AdsCall<Request, Response>;
  protocol: StreamProtocol<Request, Response>;
  watcher: ConfigWatcher;
  callbacks: CallbacksChain;
  maxResponseBytes: number;
  /** Resource names one stream may hold subscribed, all types together (see MAX_SUBSCRIBED_NAMES_PER_STREAM). */
  maxSubscribedNames: number;
  logger: Logger;
  /** Called once, when the stream has ended and its onStreamClosed hooks have run. */
  onDone: (stream: { id: number }) => void;
}

/**
 * Distinct type URLs one stream may ask for. Envoy asks for about ten (LDS, RDS, CDS, EDS, SDS,
 * RTDS…); every type keeps a subscription for the stream's life, so a stream asking for more is
 * refused rather than let grow without bound (100,000 made-up type URLs kept 23 MB).
 */
export const MAX_TYPE_URLS_PER_STREAM = 32;

/**
 * Resource names one stream may hold subscribed, all types together. A proxy names what its
 * listeners and clusters use (one RDS name per route table, one EDS name per cluster): a laptop's
 * mesh needs hundreds. Delta requests add names, so without a bound a stream that keeps
 * subscribing grows without end (30 requests of 100,000 names: +1.4 GB); SotW requests replace
 * their list and are bounded by the message size, but are held to the same number.
 */
export const MAX_SUBSCRIBED_NAMES_PER_STREAM = 10_000;

/** A stream as the UI and tests see it. */
export interface StreamInfo {
  id: number;
  peer: string;
  protocol: XdsProtocol;
  nodeId: string | undefined;
  openedAt: Date;
  subscriptions: SubscriptionInfo[];
  /** Type URLs with a request received and not yet handled (held back by a hook such as the NACK backoff). */
  waitingRequests: string[];
  /** Bytes of responses handed to gRPC and not yet taken by the connection (a client that does not read keeps them here). */
  unwrittenBytes: number;
  /** Type URLs with a response due that waits for the type's previous one to be written (then sent from the latest snapshot). */
  heldResponses: string[];
}

type AnySubscription = Subscription<XdsRequest, XdsResponse>;

export interface SubscriptionInfo {
  typeUrl: string;
  wildcard: boolean;
  names: string[];
  lastSent: AnySubscription['lastSent'];
  lastAcked: AnySubscription['lastAcked'];
  lastNack: AnySubscription['lastNack'];
  lastDropped: AnySubscription['lastDropped'];
}

/**
 * One ADS stream, State of the World or delta: the request loop, nonces, node, callbacks, pushes
 * and close are the same for both; what a request means and what a response holds per type is the
 * protocol's Subscription. Everything the stream does (callbacks, requests, snapshot pushes, close)
 * goes through one queue, so the protocol state is only ever touched by one task at a time and a
 * stream's requests are handled in the order they came. Each stream has its own queue: a slow
 * callback on one stream never holds up another.
 */
export class AdsStream<Request extends XdsRequest, Response extends XdsResponse> {
  readonly id: number;
  readonly peer: string;
  readonly openedAt = new Date();
  readonly #options: AdsStreamOptions<Request, Response>;
  /** Spec: the node is sent on the first request only (later requests may omit it). */
  #node: Node | undefined;
  readonly #subscriptions = new Map<string, Subscription<Request, Response>>();
  #snapshot: Snapshot | undefined;
  #unwatch: (() => void) | undefined;
  /** Spec: a nonce is unique per response within a stream; a counter is enough. */
  #lastNonce = 0;
  #queue: Promise<void> = Promise.resolve();
  /**
   * Requests received and not yet handled, at most one per type URL: a newer request of a type
   * replaces the one still waiting (the latest says all the proxy wants), so a stream held back by
   * the NACK backoff holds one request per type, not every request the proxy sent meanwhile.
   */
  readonly #waiting = new Map<string, Request>();
  #pushQueued = false;
  /**
   * Per type URL, the size of the response handed to gRPC whose write has not completed yet: the
   * client has not read it (HTTP/2 flow control holds it in this process). A type sends nothing
   * more until it is written, so a client that stops reading costs at most one response per type.
   */
  readonly #unwritten = new Map<string, number>();
  /**
   * Types whose response came due while the previous one was unwritten. Only the type is held,
   * not a response: it is built from the latest snapshot once the previous one is written, so the
   * versions in between are coalesced into one and its nonce is the one the client sees next.
   */
  readonly #held = new Set<string>();
  #closed = false;
  /** Aborted when the stream closes: hooks still running see it (StreamRequestEvent.signal). */
  readonly #closing = new AbortController();
  readonly #drained: Promise<void>;
  #onDrained!: () => void;

  constructor(options: AdsStreamOptions<Request, Response>) {
    this.#options = options;
    this.id = options.id;
    this.peer = options.call.getPeer();
    this.#drained = new Promise((resolve) => (this.#onDrained = resolve));
    const { call, callbacks } = options;
    call.on('data', (request: Request | UndecodableRequest) => this.#receive(request));
    call.on('end', () => this.#finish({ code: status.OK, details: 'client closed the stream' }, { by: 'proxy' })); // half-close: finish ours too
    call.on('cancelled', () => this.#close({ by: 'proxy' }));
    call.on('error', () => this.#close({ by: 'proxy' }));
    this.#enqueue(() => callbacks.onStreamOpen({ streamId: this.id, peer: this.peer, protocol: this.protocol }));
  }

  get protocol(): XdsProtocol {
    return this.#options.protocol.name;
  }

  get nodeId(): string | undefined {
    return this.#node?.id;
  }

  /** Ends the stream with this gRPC status (OK ends it cleanly); `shutdown`: because the server stops, not because of the proxy. */
  end(finalStatus: { code: status; details: string }, { shutdown = false } = {}): void {
    this.#finish(finalStatus, { by: 'control-plane', ...finalStatus, ...(shutdown && { shutdown: true as const }) });
  }

  #finish(finalStatus: { code: status; details: string }, ending: StreamEnding): void {
    if (this.#closed) return;
    this.#close(ending);
    if (finalStatus.code === status.OK) this.#options.call.end();
    else this.#options.call.emit('error', finalStatus); // grpc-js: an 'error' on a server stream becomes its status
  }

  /** Resolves once the stream has closed and its onStreamClosed hooks have run. */
  drained(): Promise<void> {
    return this.#drained;
  }

  info(): StreamInfo {
    return {
      id: this.id,
      peer: this.peer,
      protocol: this.protocol,
      nodeId: this.nodeId,
      openedAt: this.openedAt,
      subscriptions: [...this.#subscriptions.values()].map((subscription) => ({
        typeUrl: subscription.typeUrl,
        wildcard: subscription.wildcard,
        names: [...subscription.names],
        lastSent: subscription.lastSent,
        lastAcked: subscription.lastAcked,
        lastNack: subscription.lastNack,
        lastDropped: subscription.lastDropped,
      })),
      waitingRequests: [...this.#waiting.keys()],
      unwrittenBytes: [...this.#unwritten.values()].reduce((sum, bytes) => sum + bytes, 0),
      heldResponses: [...this.#held],
    };
  }

  /**
   * Queues a request, unless one of its type is waiting already: then it takes that one's place
   * (on delta too: a waiting request's subscription changes are merged into the newer one's).
   */
  #receive(request: Request | UndecodableRequest): void {
    if (this.#closed) return;
    if (request instanceof UndecodableRequest) return this.#enqueue(() => this.#handleRequest(request));
    const typeUrl = request.type_url;
    if (typeUrl.length > CLIENT_TEXT_LIMITS.typeUrl) {
      const details = `a ${this.#requestName} on stream ${this.id} has a type_url of ${typeUrl.length} characters; type URLs are at most ${CLIENT_TEXT_LIMITS.typeUrl}`;
      return this.end({ code: status.INVALID_ARGUMENT, details });
    }
    const waiting = this.#waiting.get(typeUrl);
    const latest = waiting ? this.#options.protocol.coalesce(waiting, request) : request;
    // Refused before it is held: a waiting delta request grows with every request coalesced into it.
    const named = this.#options.protocol.namesSubscribed(latest);
    if (named > this.#options.maxSubscribedNames) return this.end(this.#tooManyNames(named, latest));
    if (waiting) {
      this.#waiting.set(typeUrl, latest);
      return;
    }
    if (this.#waiting.size >= MAX_TYPE_URLS_PER_STREAM) return this.end(tooManyTypes(this.id));
    this.#waiting.set(typeUrl, request);
    this.#enqueue(() => {
      const latest = this.#waiting.get(typeUrl)!;
      this.#waiting.delete(typeUrl);
      return this.#handleRequest(latest);
    });
  }

  /** The one request loop: every protocol rule about a request is applied here, in this order. */
  async #handleRequest(request: Request | UndecodableRequest): Promise<void> {
    // Requests of many streams arrive in one read of a connection: take turns with the event loop.
    await EVENT_LOOP_SLICE.yieldWhenBusy();
    if (this.#closed) return;
    if (request instanceof UndecodableRequest) {
      const who = this.#node ? `proxy "${this.#node.id}"` : `stream ${this.id} from ${this.peer}`;
      throw new StreamError(status.INVALID_ARGUMENT, `${who} sent a message that is not a DiscoveryRequest: ${request.reason}`);
    }
    const node = this.#node ?? request.node;
    if (!node?.id) {
      throw new StreamError(status.INVALID_ARGUMENT, `the first ${this.#requestName} on stream ${this.id} from ${this.peer} carries no node.id`);
    }
    this.#node = node;
    if (!request.type_url) {
      throw new StreamError(status.INVALID_ARGUMENT, `proxy "${node.id}" sent a ${this.#requestName} without type_url, which ADS requires`);
    }
    const subscription = this.#subscriptionFor(request.type_url);
    const classification = subscription.classify(request);
    const signal = this.#closing.signal;
    await this.#options.callbacks.onStreamRequest({ streamId: this.id, node, request, classification, signal });
    if (this.#closed) return;
    // Only a node the callbacks accepted gets configuration.
    if (!this.#unwatch) this.#unwatch = this.#options.watcher.watch(node.id, (snapshot) => this.#onSnapshot(snapshot));
    // Spec: a stale SotW request (older nonce) is ignored entirely, its resource names included
    // (delta never classifies one stale: its subscription changes must not be lost).
    if (classification.kind === 'stale') return;
    subscription.apply(withClippedErrorDetail(request), classification);
    const subscribed = this.#subscribedNames();
    if (subscribed > this.#options.maxSubscribedNames) {
      const refusal = this.#tooManyNames(subscribed, request);
      throw new StreamError(refusal.code, refusal.details);
    }
    this.#respond(subscription);
  }

  #subscribedNames(): number {
    let count = 0;
    for (const subscription of this.#subscriptions.values()) count += subscription.names.size;
    return count;
  }

  /**
   * Ending the stream is the one refusal xDS has (a server cannot answer a request with an error).
   * Envoy logs the status with its message, keeps its configuration and reconnects with backoff;
   * ignoring the names instead would leave it waiting for resources that never come, with no reason.
   */
  #tooManyNames(count: number, request: Request): { code: status; details: string } {
    const nodeId = (this.#node ?? request.node)?.id;
    const who = nodeId ? `proxy "${nodeId}"` : `a client at ${this.peer}`;
    return {
      code: status.RESOURCE_EXHAUSTED,
      details:
        `${who} would subscribe to ${count} resource names on stream ${this.id} with this ${shortTypeName(request.type_url)} request; ` +
        `a stream may subscribe to at most ${this.#options.maxSubscribedNames} names, all types together`,
    };
  }

  #onSnapshot(snapshot: Snapshot): void {
    this.#snapshot = snapshot;
    if (this.#pushQueued) return; // the queued push will read the latest snapshot
    this.#pushQueued = true;
    this.#enqueue(() => {
      this.#pushQueued = false;
      // Spec: when several types change at once, push CDS → EDS → LDS → RDS (then any other type).
      for (const typeUrl of pushOrder(this.#subscriptions.keys())) this.#respond(this.#subscriptions.get(typeUrl)!);
    });
  }

  /** Sends the type's response if one is due (see Subscription.dueResponse). */
  #respond(subscription: Subscription<Request, Response>): void {
    const typeUrl = subscription.typeUrl;
    const typeSnapshot = this.#snapshot?.get(typeUrl);
    if (this.#closed || !typeSnapshot) return;
    if (this.#unwritten.has(typeUrl)) {
      this.#held.add(typeUrl);
      return;
    }
    const due = subscription.dueResponse(typeSnapshot, String(this.#lastNonce + 1));
    if (!due) return;
    const node = this.#node!;
    const { response } = due;
    const version = typeSnapshot.version;
    const size = discoveryResponseSize(response);
    if (size > this.#options.maxResponseBytes) {
      if (subscription.lastDropped?.version === version) return; // already reported
      const error = new Error(
        `${shortTypeName(subscription.typeUrl)} response version ${version} for proxy "${node.id}" is ${size} bytes, ` +
          `over the ${this.#options.maxResponseBytes}-byte limit: not sent, the proxy keeps its last configuration`,
      );
      subscription.recordDropped(version, error);
      this.#notify('onResponseDropped', () =>
        this.#options.callbacks.onResponseDropped({ streamId: this.id, node, typeUrl: subscription.typeUrl, version, error }),
      );
      return;
    }
    this.#lastNonce += 1;
    this.#unwritten.set(typeUrl, size);
    this.#options.call.write(response, () => this.#written(subscription));
    subscription.recordSent(due, version);
    this.#notify('onStreamResponse', () =>
      this.#options.callbacks.onStreamResponse({ streamId: this.id, node, request: subscription.lastRequest, response, version }),
    );
  }

  /** The type's response reached the connection: a response held meanwhile is due now (from the latest snapshot). */
  #written(subscription: Subscription<Request, Response>): void {
    this.#unwritten.delete(subscription.typeUrl);
    if (this.#held.delete(subscription.typeUrl)) this.#enqueue(() => this.#respond(subscription));
  }

  #subscriptionFor(typeUrl: string): Subscription<Request, Response> {
    let subscription = this.#subscriptions.get(typeUrl);
    if (subscription) return subscription;
    if (this.#subscriptions.size >= MAX_TYPE_URLS_PER_STREAM) {
      const refusal = tooManyTypes(this.id);
      throw new StreamError(refusal.code, refusal.details);
    }
    this.#subscriptions.set(typeUrl, (subscription = this.#options.protocol.subscription(typeUrl)));
    return subscription;
  }

  /** The request message's name, for errors a client's author recognises. */
  get #requestName(): string {
    return this.protocol === 'delta' ? 'DeltaDiscoveryRequest' : 'DiscoveryRequest';
  }

  #enqueue(task: () => void | Promise<void>): void {
    this.#queue = this.#queue.then(task).catch((error: unknown) => {
      if (this.#closed) this.#options.logger.error(`ADS stream ${this.id} (proxy "${this.nodeId}") failed after closing:`, error);
      else this.end(statusOf(error));
    });
  }

  /**
   * Stops the stream's work and tells the hook in flight (its signal aborts, so a wait ends now);
   * onStreamClosed runs once that hook returns. Idempotent.
   */
  #close(ending: StreamEnding): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiting.clear();
    this.#unwatch?.();
    this.#closing.abort();
    this.#enqueue(() => {
      this.#notify('onStreamClosed', () => this.#options.callbacks.onStreamClosed({ streamId: this.id, node: this.#node, ending }));
      this.#options.onDone(this);
      this.#onDrained();
    });
  }

  /** Notification hooks cannot change the stream's course: their errors are logged. */
  #notify(hook: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#options.logger.error(`ADS callback ${hook} failed on stream ${this.id} (proxy "${this.nodeId}"):`, error);
    }
  }
}

function tooManyTypes(streamId: number): { code: status; details: string } {
  return {
    code: status.RESOURCE_EXHAUSTED,
    details: `stream ${streamId} asked for more than ${MAX_TYPE_URLS_PER_STREAM} type URLs; a proxy needs about ten`,
  };
}

function pushOrder(typeUrls: Iterable<string>): string[] {
  const present = new Set(typeUrls);
  const known: readonly string[] = XDS_TYPE_URLS;
  return [...known.filter((typeUrl) => present.has(typeUrl)), ...[...present].filter((typeUrl) => !known.includes(typeUrl))];
}
