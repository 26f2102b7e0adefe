import type { ServerResponse } from 'node:http';
import type { EventBus } from '../events/event-bus.js';
import type { Metrics } from '../metrics/metrics.js';
import { ApiError } from './api-error.js';
import type { Route } from './router.js';

const HEARTBEAT_MS = 15_000;
/**
 * What a subscriber may leave unread in its response, beyond what the kernel's socket buffers
 * already hold (several MB on loopback), before it is dropped. A reading browser keeps it near
 * zero; one that stopped reading would otherwise grow the heap by every event sent (100 such
 * subscribers during proxy churn: 1.5 GB in 40 s). About a thousand ordinary events.
 */
export const MAX_PENDING_BYTES = 256 * 1024;
/**
 * Subscribers at once, dropped ones still finishing included. A browser opens at most six
 * connections per host over HTTP/1.1, EventSource included, so a few windows and scripts stay far
 * below; 1,000 subscribers that never read took 650 MB. With MAX_PENDING_BYTES each, all of them
 * together hold at most 2 × 64 × 256 KB (queued, and in the socket).
 */
export const MAX_SUBSCRIBERS = 64;
/** How long a dropped subscriber gets to read what was already queued for it before its connection is cut. */
const DROP_GRACE_MS = 30_000;
/** How long a refused subscriber is told to wait before trying again. */
const REFUSED_RETRY_AFTER_SECONDS = 5;

export interface EventStreamLimits {
  maxSubscribers: number;
  maxPendingBytes: number;
}

/**
 * `GET /events`: the core's events as Server-Sent Events (`event: <topic>`, `data: <json>`),
 * the live feed the UI subscribes to in headless mode. Open streams are tracked so that
 * shutdown can end them instead of waiting for the browser to go away.
 *
 * A subscriber that falls behind by more than `maxPendingBytes` is dropped (its connection
 * closed): EventSource reconnects by itself, and the UI reloads what it shows when its stream
 * is live again (MeshdeskClient.onLive), so nothing it missed stays missing. Beyond
 * `maxSubscribers` connected, a new one is refused with 503 saying so.
 */
export class EventStream {
  readonly #open = new Set<Subscriber>();
  /** Connections not yet closed, dropped ones finishing included: what the subscriber bound counts. */
  #connected = 0;
  /** Refusing since the bound was reached: logged once per time it is reached, not per refusal. */
  #refusing = false;
  readonly #limits: EventStreamLimits;
  #unsubscribe: (() => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly events: EventBus,
    private readonly metrics?: Pick<Metrics, 'eventStreamDropped'>,
    limits: Partial<EventStreamLimits> = {},
  ) {
    this.#limits = { maxSubscribers: MAX_SUBSCRIBERS, maxPendingBytes: MAX_PENDING_BYTES, ...limits };
  }

  route(): Route {
    return {
      method: 'GET',
      path: '/events',
      handler: ({ request, response }) => {
        if (this.#connected >= this.#limits.maxSubscribers) {
          if (!this.#refusing) console.warn(`meshdesk: refusing /events subscribers: ${this.#connected} are connected, the most served at once`);
          this.#refusing = true;
          throw new ApiError(
            503,
            'Too many event subscribers',
            `${this.#connected} /events subscribers are connected, the most meshdesk serves at once (${this.#limits.maxSubscribers}); ` +
              'close another meshdesk window or event stream and retry',
            [],
            REFUSED_RETRY_AFTER_SECONDS,
          );
        }
        response.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-store',
          connection: 'keep-alive',
        });
        // A HEAD gets the stream's headers and nothing else: Node sends no headers for a body-less
        // response until it ends, so a HEAD left open would wait forever.
        if (request.method === 'HEAD') {
          response.end();
          return undefined;
        }
        const subscriber = new Subscriber(response);
        subscriber.send(': meshdesk events\n\n');
        this.#open.add(subscriber);
        this.#connected += 1;
        response.once('close', () => {
          this.#connected -= 1;
          this.#refusing = false;
          this.#remove(subscriber);
        });
        this.#startFeeding();
        return undefined;
      },
    };
  }

  /** Ends every stream; events published after this (a shutdown publishes many) are not written to them. */
  closeAll(): void {
    for (const subscriber of this.#open) {
      this.#remove(subscriber);
      subscriber.end();
    }
  }

  /** One bus subscription for all streams: each event is serialized once, however many listen. */
  #startFeeding(): void {
    this.#unsubscribe ??= this.events.subscribe((event) => this.#broadcast(`event: ${event.topic}\ndata: ${JSON.stringify(event)}\n\n`));
    this.#heartbeat ??= setInterval(() => this.#broadcast(': heartbeat\n\n'), HEARTBEAT_MS);
  }

  #broadcast(chunk: string): void {
    for (const subscriber of this.#open) {
      subscriber.send(chunk);
      if (subscriber.pendingBytes > this.#limits.maxPendingBytes) this.#drop(subscriber);
    }
  }

  #drop(subscriber: Subscriber): void {
    const pending = subscriber.pendingBytes;
    this.#remove(subscriber);
    // Ended, so that a browser that reads again gets a clean end and reconnects; cut if it never does.
    subscriber.end();
    const cut = setTimeout(() => subscriber.response.destroy(), DROP_GRACE_MS);
    subscriber.response.once('close', () => clearTimeout(cut));
    this.metrics?.eventStreamDropped.inc();
    console.warn(`meshdesk: dropped an event stream subscriber that fell ${pending} bytes behind; it reloads when it reconnects`);
  }

  #remove(subscriber: Subscriber): void {
    if (!this.#open.delete(subscriber) || this.#open.size > 0) return;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

/**
 * One `/events` response, written one chunk at a time: while a chunk is not yet taken by the
 * socket, later events wait here and go as one chunk when it is. The socket so holds at most one
 * chunk of ours: dropping a subscriber discards the rest at once, where a socket destroyed with
 * thousands of buffered writes makes an error object for each (1,000 subscribers: 16–51 s stalled).
 */
class Subscriber {
  #queued: string[] = [];
  #queuedBytes = 0;
  #writing = false;
  #ended = false;

  constructor(readonly response: ServerResponse) {}

  /** Bytes sent to this subscriber that it has not read yet, beyond the kernel's buffers. */
  get pendingBytes(): number {
    return this.#queuedBytes + this.response.writableLength;
  }

  send(chunk: string): void {
    if (this.#ended) return;
    if (!this.#writing) return this.#write(chunk);
    this.#queued.push(chunk);
    this.#queuedBytes += Buffer.byteLength(chunk);
  }

  /** Ends the response after the chunk being written; what waits is discarded, never half an event. */
  end(): void {
    this.#ended = true;
    this.#queued = [];
    this.#queuedBytes = 0;
    this.response.end();
  }

  #write(chunk: string): void {
    this.#writing = true;
    this.response.write(chunk, (error) => {
      this.#writing = false;
      if (error) this.#ended = true; // the connection is gone: its 'close' removes the subscriber
      if (this.#ended || this.#queued.length === 0) return;
      const next = this.#queued.join('');
      this.#queued = [];
      this.#queuedBytes = 0;
      this.#write(next);
    });
  }
}
