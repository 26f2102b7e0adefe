import type { ServerResponse } from 'node:http';
import type { EventBus } from '../events/event-bus.js';
import type { Route } from './router.js';

const HEARTBEAT_MS = 15_000;

/**
 * `GET /events`: the core's events as Server-Sent Events (`event: <topic>`, `data: <json>`),
 * the live feed the UI subscribes to in headless mode. Open streams are tracked so that
 * shutdown can end them instead of waiting for the browser to go away.
 */
export class EventStream {
  /** Open streams, each with what stops feeding it. */
  readonly #open = new Map<ServerResponse, () => void>();

  constructor(private readonly events: EventBus) {}

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
        const unsubscribe = this.events.subscribe((event) => {
          response.write(`event: ${event.topic}\ndata: ${JSON.stringify(event)}\n\n`);
        });
        const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), HEARTBEAT_MS);
        const stop = () => {
          clearInterval(heartbeat);
          unsubscribe();
          this.#open.delete(response);
        };
        this.#open.set(response, stop);
        request.on('close', stop);
        return undefined;
      },
    };
  }

  /** Ends every stream; events published after this (a shutdown publishes many) are not written to them. */
  closeAll(): void {
    for (const [response, stop] of this.#open) {
      stop();
      response.end();
    }
  }
}
