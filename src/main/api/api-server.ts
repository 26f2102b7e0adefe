import { createServer, IncomingMessage, ServerResponse, STATUS_CODES, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Socket } from 'node:net';
import type { ApiRequest, ApiResponse } from '../../shared/bridge.js';
import { ApiError, errorBody, toApiError } from './api-error.js';
import { checkRequestOrigin } from './request-guard.js';
import { parseRequestTarget, type Reply, type Route, type Router } from './router.js';
import { listen } from '../net/listen.js';

export const MAX_BODY_BYTES = 1024 * 1024;

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
  /**
   * The same API without TCP, for a caller inside this process that has already decided the
   * request may be made (the Electron shell's IPC bridge checks its sender instead of Host/Origin).
   */
  request(request: ApiRequest): Promise<ApiResponse>;
  /** Every route it serves, for checks that must cover each one (tests walk them). */
  routes(): readonly Route[];
  close(): Promise<void>;
}

/** One API request, whatever carried it. */
export interface ApiCall {
  method: string;
  /** Path and query, e.g. `/meshes/default/dataplanes?size=100`. */
  path: string;
  body(): Promise<string>;
  /**
   * The HTTP exchange behind the call. Routes that answer by writing to it themselves (the event
   * stream, the UI's files) need it; the in-process transport gives them a detached one.
   */
  exchange: { request: IncomingMessage; response: ServerResponse };
}

/**
 * Routes a call and turns the handler's reply, or its error, into a response. `undefined` means the
 * route wrote its answer to the HTTP exchange itself (it streams), which only HTTP can carry.
 */
export async function handleApiRequest(router: Router, call: ApiCall): Promise<ApiResponse | undefined> {
  try {
    const url = parseRequestTarget(call.path);
    const { handler, params } = router.match(call.method, url.pathname);
    const reply = await handler({ ...call.exchange, params, query: url.searchParams, body: call.body });
    return reply === undefined ? undefined : toResponse(reply);
  } catch (error) {
    const apiError = toApiError(error);
    // A bootstrap's `?token=` is a credential: it stays out of the log. A route's own ApiError (a
    // refusal such as /events' 503 when full) says all in its answer: logging each would flood the log.
    if (apiError.status >= 500 && !(error instanceof ApiError)) console.error(`${call.method} ${call.path.replace(/([?&]token=)[^&]*/g, '$1…')} failed:`, error);
    return errorResponse(apiError);
  }
}

/** How long in-flight requests may take to finish once the server is closing. */
const SHUTDOWN_GRACE_MS = 2_000;

export async function startApiServer(options: ApiServerOptions): Promise<RunningApiServer> {
  let boundPort = options.port;
  // Node's own check would answer a request without Host with a bare 400; the guard says why, in JSON.
  const server: Server = createServer({ requireHostHeader: false }, (request, response) => {
    void serveHttp(request, response, options.router, boundPort);
  });
  server.on('clientError', answerUnparsableRequest);
  boundPort = await listen(server, { host: options.host, port: options.port, purpose: 'HTTP API' });
  return {
    port: boundPort,
    url: `http://${options.host}:${boundPort}`,
    request: (request) => serveInProcess(options.router, request),
    routes: () => options.router.routes(),
    close: () =>
      new Promise<void>((resolve) => {
        options.onClose?.();
        // Requests in flight get a moment to be answered (a write that committed is not cut off
        // half-way); idle keep-alive connections go at once, and whatever is left after the grace.
        const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        server.close(() => {
          clearTimeout(grace);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/**
 * A request Node's HTTP parser refuses (malformed line or header, headers too large) never reaches
 * the router; it still gets the API's JSON error naming what was wrong, not Node's bare 400.
 */
function answerUnparsableRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const reason = (error as { reason?: string }).reason ?? error.message;
  const body = JSON.stringify(errorBody(new ApiError(status, 'Could not parse the HTTP request', `${reason} (${error.code ?? 'parse error'})`)));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `connection: close\r\n\r\n${body}`,
  );
}

async function serveHttp(request: IncomingMessage, response: ServerResponse, router: Router, port: number): Promise<void> {
  let answer: ApiResponse | undefined;
  try {
    checkRequestOrigin(request, port);
    answer = await handleApiRequest(router, {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      body: () => readBody(request),
      exchange: { request, response },
    });
  } catch (error) {
    answer = errorResponse(toApiError(error));
  }
  if (answer === undefined) return;
  if (response.headersSent) {
    // The route had started streaming when it failed: there is no status left to send.
    response.destroy();
    return;
  }
  response.writeHead(answer.status, {
    'content-type': answer.contentType,
    'content-length': Buffer.byteLength(answer.body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...answer.headers,
  });
  response.end(answer.body);
}

async function serveInProcess(router: Router, { method, path, body }: ApiRequest): Promise<ApiResponse> {
  const exchange = detachedExchange(method, path, {});
  const bodyText = async () => {
    if (body !== undefined && Buffer.byteLength(body) > MAX_BODY_BYTES) throw tooLarge();
    return body ?? '';
  };
  const answer = await handleApiRequest(router, { method, path, body: bodyText, exchange });
  if (answer !== undefined) return answer;
  // Ends what the streaming route started (an event stream unsubscribes when its request closes).
  exchange.request.destroy();
  return errorResponse(
    new ApiError(
      404,
      'Not available here',
      `${method} ${path} answers over HTTP only; in the desktop app, live events come through window.meshdesk.subscribe`,
    ),
  );
}

/** A request/response pair bound to no socket: whatever a route writes to it never leaves the process. */
function detachedExchange(method: string, path: string, headers: IncomingHttpHeaders) {
  const request = new IncomingMessage(new Socket());
  Object.assign(request, { method, url: path, headers });
  return { request, response: new ServerResponse(request) };
}

function errorResponse(error: ApiError): ApiResponse {
  return {
    status: error.status,
    contentType: 'application/json',
    body: JSON.stringify(errorBody(error), null, 2),
    ...(error.retryAfterSeconds !== undefined && { headers: { 'retry-after': String(error.retryAfterSeconds) } }),
  };
}

function tooLarge(): ApiError {
  return new ApiError(413, 'Request body too large', `the body exceeds ${MAX_BODY_BYTES} bytes`);
}

function toResponse(reply: NonNullable<Reply>): ApiResponse {
  const status = reply.status ?? 200;
  return 'json' in reply
    ? { status, contentType: 'application/json', body: JSON.stringify(reply.json, null, 2) }
    : { status, contentType: reply.contentType, body: reply.text };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // Read and drop the rest instead of destroying the socket, which would lose the 413 answer.
        reject(tooLarge());
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
