import { status } from '@grpc/grpc-js';
import type { Node, XdsProtocol, XdsRequest, XdsResponse } from '../protocol/ads-service.js';

/**
 * What a request is, decided once by the stream (so that every callback agrees), whichever
 * protocol carried it:
 * - `initial`: SotW: no response of this type has been sent on this stream yet; delta: the type's
 *   first request on this stream;
 * - `ack`: answers a response without error_detail (SotW: echoes the latest nonce of its type;
 *   delta: echoes the nonce of any response of its type not answered yet);
 * - `nack`: the same, with error_detail;
 * - `stale` (SotW only): echoes an older nonce; the server ignores it entirely;
 * - `update` (delta only): answers no response (no nonce, or one no longer known) and only
 *   changes the subscription.
 * `subscriptionChanged` says whether it changes the resource names the stream is subscribed to
 * (always false for a stale request, which changes nothing). `version` is the version of the type
 * the client has after this request: for an ACK the one it accepts, for a NACK the one it keeps
 * (SotW: the request's version_info; delta: the system version of the response it last accepted).
 */
export interface RequestClassification {
  kind: 'initial' | 'ack' | 'nack' | 'stale' | 'update';
  typeUrl: string;
  subscriptionChanged: boolean;
  version: string;
}

export interface StreamOpenEvent {
  streamId: number;
  /** The client's address, as gRPC reports it ("127.0.0.1:53422"). */
  peer: string;
  /** Which ADS method the client called: StreamAggregatedResources or DeltaAggregatedResources. */
  protocol: XdsProtocol;
}

export interface StreamRequestEvent {
  streamId: number;
  /** From the stream's first request; later requests may omit it. */
  node: Node;
  /** A DiscoveryRequest on a SotW stream, a DeltaDiscoveryRequest on a delta one. */
  request: XdsRequest;
  classification: RequestClassification;
  /**
   * Aborts when the stream closes, even while a hook is still running on its queue: a hook that
   * waits (the post-create wait, the NACK backoff) stops waiting for a proxy that is gone.
   */
  signal: AbortSignal;
}

export interface StreamResponseEvent {
  streamId: number;
  node: Node;
  /** The latest request of the response's type that the server acted on. */
  request: XdsRequest | undefined;
  /** A DiscoveryResponse on a SotW stream, a DeltaDiscoveryResponse on a delta one. */
  response: XdsResponse;
  /** The response's version of its type: `version_info` (SotW) or `system_version_info` (delta). */
  version: string;
}

export interface ResponseDroppedEvent {
  streamId: number;
  node: Node;
  typeUrl: string;
  version: string;
  /** Names the proxy, the type and the reason. */
  error: Error;
}

/**
 * How a stream ended: the proxy went away (closed, cancelled, connection lost), or the control
 * plane ended it with this gRPC status (a callback refused the proxy, its token was revoked,
 * shutdown), which is what the proxy was told.
 */
export type StreamEnding = { by: 'proxy' } | { by: 'control-plane'; code: status; details: string; /** the server is stopping */ shutdown?: true };

export interface StreamClosedEvent {
  streamId: number;
  /** Undefined when the stream closed before its first request. */
  node: Node | undefined;
  ending: StreamEnding;
}

/**
 * Hooks into every ADS stream; implement only the ones you need. They run on the stream's own
 * queue: a stream's hooks run one at a time, in the order of its events, and the stream waits for
 * each open/request hook (async allowed) before it goes on. Other streams never wait.
 *
 * An error thrown (or rejected) by `onStreamOpen` or `onStreamRequest` closes the stream with a
 * gRPC status: the error's `code` if it is a StreamError, INTERNAL otherwise, and its message.
 * `onStreamClosed` is still called. The other hooks are notifications: an error they throw is logged.
 */
export interface Callbacks {
  onStreamOpen?(event: StreamOpenEvent): void | Promise<void>;
  /** Called for every request, stale ones included, before the server acts on it. */
  onStreamRequest?(event: StreamRequestEvent): void | Promise<void>;
  /** Called after a response has been written to the stream. */
  onStreamResponse?(event: StreamResponseEvent): void;
  /** A response was due but not sent (too large): the proxy keeps its last configuration. */
  onResponseDropped?(event: ResponseDroppedEvent): void;
  onStreamClosed?(event: StreamClosedEvent): void;
}

/** An error that closes a stream with a chosen gRPC status (INVALID_ARGUMENT, PERMISSION_DENIED…). */
export class StreamError extends Error {
  override readonly name = 'StreamError';
  constructor(
    readonly code: status,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Runs a list of callbacks as one (Kuma's CallbacksChain): open and request hooks in list order,
 * stopping at the first error; response, dropped and close hooks in reverse order, so that a
 * callback sees the end of a stream before the callbacks it relies on do.
 */
export class CallbacksChain implements Required<Callbacks> {
  readonly #callbacks: readonly Callbacks[];
  readonly #reversed: readonly Callbacks[];

  constructor(callbacks: readonly Callbacks[]) {
    this.#callbacks = [...callbacks];
    this.#reversed = [...callbacks].reverse();
  }

  async onStreamOpen(event: StreamOpenEvent): Promise<void> {
    for (const callbacks of this.#callbacks) await callbacks.onStreamOpen?.(event);
  }

  /** A stream that closed meanwhile runs no further hooks: what they would start, its close would undo. */
  async onStreamRequest(event: StreamRequestEvent): Promise<void> {
    for (const callbacks of this.#callbacks) {
      if (event.signal.aborted) return;
      await callbacks.onStreamRequest?.(event);
    }
  }

  onStreamResponse(event: StreamResponseEvent): void {
    notifyAll(this.#reversed, (callbacks) => callbacks.onStreamResponse?.(event));
  }

  onResponseDropped(event: ResponseDroppedEvent): void {
    notifyAll(this.#reversed, (callbacks) => callbacks.onResponseDropped?.(event));
  }

  onStreamClosed(event: StreamClosedEvent): void {
    notifyAll(this.#reversed, (callbacks) => callbacks.onStreamClosed?.(event));
  }
}

/** Every notification hook runs even if an earlier one throws; the errors are thrown together afterwards. */
function notifyAll(callbacks: readonly Callbacks[], notify: (callbacks: Callbacks) => void): void {
  const errors: unknown[] = [];
  for (const each of callbacks) {
    try {
      notify(each);
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, errors.map((error) => String(error)).join('; '));
}

/** The gRPC status a hook's error closes its stream with. */
export function statusOf(error: unknown): { code: status; details: string } {
  if (error instanceof StreamError) return { code: error.code, details: error.message };
  return { code: status.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}
