import type { ServerResponse } from 'node:http';
import type { EventBus } from '../events/event-bus.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Route } from './router.js';

const HEARTBEAT_MS = 15_000;
/**
 * What a subscriber may leave unread in its response, beyond what the kernel's socket buffers
 * already hold (several MB on loopback), before it is dropped. A reading browser keeps it near
 * zero; one that stopped reading would otherwise grow the heap by every event sent (100 such
 * subscribers during proxy churn: 1.5 GB in 40 s). About a thousand ordinary events.
 */
export const MAX_PENDING_BYTES = 256 * 1024;
/** How long a dropped subscriber gets to read what was already queued for it before its connection is cut. */
const DROP_GRACE_MS = 30_000;

/**
 * `GET /events`: the core's events as Server-Sent Events (`event: <topic>`, `data: <json>`),
 * the live feed the UI subscribes to in headless mode. Open streams are tracked so that
 * shutdown can end them instead of waiting for the browser to go away.
 *
 * A subscriber that falls behind by more than MAX_PENDING_BYTES is dropped (its connection
 * closed): EventSource reconnects by itself, and the UI reloads what it shows when its stream
 * is live again (MeshdeskClient.onLive), so nothing it missed stays missing.
 */
export class EventStream {
  readonly #open = new Set<ServerResponse>();
  #unsubscribe: (() => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly events: EventBus,
    private readonly metrics?: Pick<Metrics, 'eventStreamDropped'>,
  ) {}

  route(): Route {
    return {
      method: 'GET',
      path: '/events',
      handler: ({ request, response }) => {
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
        response.write(': meshdesk events\n\n');
        this.#open.add(response);
        request.on('close', () => this.#remove(response));
        this.#startFeeding();
        return undefined;
      },
    };
  }

  /** Ends every stream; events published after this (a shutdown publishes many) are not written to them. */
  closeAll(): void {
    for (const response of this.#open) {
      this.#remove(response);
      response.end();
    }
  }

  /** One bus subscription for all streams: each event is serialized once, however many listen. */
  #startFeeding(): void {
    this.#unsubscribe ??= this.events.subscribe((event) => this.#broadcast(`event: ${event.topic}\ndata: ${JSON.stringify(event)}\n\n`));
    this.#heartbeat ??= setInterval(() => this.#broadcast(': heartbeat\n\n'), HEARTBEAT_MS);
  }

  #broadcast(chunk: string): void {
    for (const response of this.#open) {
      response.write(chunk);
      if (response.writableLength > MAX_PENDING_BYTES) this.#drop(response);
    }
  }

  #drop(response: ServerResponse): void {
    const pending = response.writableLength;
    this.#remove(response);
    // Ended, so that a browser that reads again gets a clean end and reconnects; cut if it never does.
    response.end();
    const cut = setTimeout(() => response.destroy(), DROP_GRACE_MS);
    response.once('close', () => clearTimeout(cut));
    this.metrics?.eventStreamDropped.inc();
    console.warn(`meshdesk: dropped an event stream subscriber that fell ${pending} bytes behind; it reloads when it reconnects`);
  }

  #remove(response: ServerResponse): void {
    if (!this.#open.delete(response) || this.#open.size > 0) return;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}
