import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError, errorBody, toApiError } from './api-error.js';
import { checkRequestOrigin } from './request-guard.js';
import type { Reply, Router } from './router.js';
import { listen } from '../net/listen.js';

const MAX_BODY_BYTES = 1024 * 1024;

export interface ApiServerOptions {
  host: string;
  port: number;
  router: Router;
  /** Called before the server stops accepting, to end long-lived responses such as event streams. */
  onClose?: () => void;
}

export interface RunningApiServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startApiServer(options: ApiServerOptions): Promise<RunningApiServer> {
  let boundPort = options.port;
  const server: Server = createServer((request, response) => {
    void handle(request, response, options.router, boundPort);
  });
  boundPort = await listen(server, { host: options.host, port: options.port, purpose: 'HTTP API' });
  return {
    port: boundPort,
    url: `http://${options.host}:${boundPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        options.onClose?.();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(request: IncomingMessage, response: ServerResponse, router: Router, port: number): Promise<void> {
  try {
    checkRequestOrigin(request, port);
    const url = new URL(request.url ?? '/', 'http://localhost');
    const { handler, params } = router.match(request.method ?? 'GET', url.pathname);
    const reply = await handler({ request, response, params, query: url.searchParams, body: () => readBody(request) });
    if (reply !== undefined) send(response, reply);
  } catch (error) {
    const apiError = toApiError(error);
    if (apiError.status >= 500) console.error(`${request.method} ${request.url} failed:`, error);
    if (response.headersSent) {
      response.destroy();
      return;
    }
    send(response, { status: apiError.status, json: errorBody(apiError) });
  }
}

function send(response: ServerResponse, reply: NonNullable<Reply>): void {
  const [body, contentType] =
    'json' in reply ? [JSON.stringify(reply.json, null, 2), 'application/json'] : [reply.text, reply.contentType];
  response.writeHead(reply.status ?? 200, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(413, 'Request body too large', `the body exceeds ${MAX_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
