import type { IpcMain, IpcMainEvent, IpcMainInvokeEvent, WebContents } from './electron-types.js';
import type { ApiMethod, ApiRequest, ApiResponse } from '../../shared/bridge.js';
import type { CoreEvent } from '../../shared/events.js';
import { EVENTS_PER_RECEIPT, IpcChannel } from '../../shared/ipc-channels.js';
import { MAX_BODY_BYTES } from '../api/api-server.js';
import type { AppOrigin } from './app-origin.js';

const METHODS: ReadonlySet<string> = new Set<ApiMethod>(['GET', 'PUT', 'POST', 'DELETE']);
const REQUEST_KEYS: ReadonlySet<string> = new Set<keyof ApiRequest>(['method', 'path', 'body']);
const MAX_PATH_BYTES = 2048;
/** Events held for a page that has not said it listens yet; beyond this the oldest are dropped. */
const MAX_HELD_EVENTS = 1000;
/**
 * Events pushed to a page that has not yet reported taking them. Electron queues every message to
 * a busy or hung renderer without limit; past this, pushes stop and the page is told to reload.
 */
export const MAX_UNRECEIVED_EVENTS = 2000;

/** A message the main process refuses: the renderer gets this message as the rejection of its `invoke`. */
export class IpcRequestError extends Error {
  override readonly name = 'IpcRequestError';
}

/**
 * The one check of a `meshdesk:request` payload, made as it enters the main process: exactly the
 * ApiRequest shape, a known method, an absolute API path within bounds, a body within bounds.
 */
export function parseApiRequest(payload: unknown): ApiRequest {
  const refuse = (reason: string) => new IpcRequestError(`${IpcChannel.request} refused: ${reason}`);
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw refuse(`the payload must be an object {method, path, body?}, got ${describe(payload)}`);
  }
  const extra = Object.keys(payload).filter((key) => !REQUEST_KEYS.has(key));
  if (extra.length > 0) throw refuse(`unknown key(s) ${extra.map((key) => `"${key}"`).join(', ')}; allowed: method, path, body`);
  const { method, path, body } = payload as Record<string, unknown>;
  if (typeof method !== 'string' || !METHODS.has(method)) {
    throw refuse(`method must be one of ${[...METHODS].join(', ')}, got ${describe(method)}`);
  }
  if (typeof path !== 'string') throw refuse(`path must be a string, got ${describe(path)}`);
  checkPath(path, refuse);
  if (body !== undefined && typeof body !== 'string') throw refuse(`body must be a string when present, got ${describe(body)}`);
  if (body !== undefined && Buffer.byteLength(body) > MAX_BODY_BYTES) {
    throw refuse(`body is ${Buffer.byteLength(body)} bytes; the limit is ${MAX_BODY_BYTES}`);
  }
  return body === undefined ? { method: method as ApiMethod, path } : { method: method as ApiMethod, path, body };
}

function checkPath(path: string, refuse: (reason: string) => IpcRequestError): void {
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw refuse(`path is longer than ${MAX_PATH_BYTES} bytes`);
  if (!path.startsWith('/') || path.startsWith('//')) throw refuse(`path must start with a single "/", got ${describe(path)}`);
  if (/[\u0000-\u001f\u007f\\#]/.test(path)) throw refuse(`path must not contain control characters, "\\" or "#", got ${describe(path)}`);
  const pathname = path.split('?', 1)[0]!;
  const segments = pathname.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw refuse(`path segment "${segment}" is not valid percent-encoding`);
    }
  });
  if (segments.some((segment) => segment === '..' || segment === '.')) throw refuse(`path must not contain "." or ".." segments, got ${describe(path)}`);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (value === null || Array.isArray(value)) return value === null ? 'null' : 'an array';
  return typeof value;
}

/** What the handlers need to know of an IPC event's origin. */
export interface IpcSender {
  sender: unknown;
  senderFrame: { url: string; parent: unknown } | null;
}

/**
 * Only the top frame of our own window, showing one of the app's pages, may talk to the core.
 * (`event.sender === window.webContents` is `BrowserWindow.fromWebContents(event.sender) === window`
 * without admitting views a window might host.)
 */
export function checkSender(event: IpcSender, trusted: { origin: AppOrigin; webContents: unknown }, channel: string): void {
  const frame = event.senderFrame;
  const refuse = (reason: string) => new IpcRequestError(`${channel} refused: ${reason}`);
  if (event.sender !== trusted.webContents) throw refuse('the sender is not meshdesk\'s window');
  if (frame === null) throw refuse('the sending frame is gone (it navigated or closed)');
  if (frame.parent !== null) throw refuse(`the sender is a sub-frame (${frame.url}), not the app's page`);
  if (!trusted.origin.contains(frame.url)) throw refuse(`the sender's page ${frame.url} is not the app's (${trusted.origin.entryUrl})`);
}

/**
 * Pushes core events to one page, holding them until the page says it listens (the preload sends
 * `meshdesk:ready` when the renderer subscribes), so events from before that are not lost.
 * A new document starts over: it has to say so again.
 *
 * A page that stops taking events (it reports them in batches, `meshdesk:received`) gets at most
 * MAX_UNRECEIVED_EVENTS, then one `meshdesk:gap`; later events are dropped until it has reloaded
 * and said `ready` again.
 */
export class EventForwarder {
  #state: 'holding' | 'live' | 'behind' = 'holding';
  #held: CoreEvent[] = [];
  #unreceived = 0;

  constructor(
    private readonly send: (event: CoreEvent) => void,
    private readonly sendGap: () => void = () => {},
  ) {}

  push(event: CoreEvent): void {
    if (this.#state === 'live') {
      this.#deliver(event);
      return;
    }
    if (this.#state === 'behind') return;
    this.#held.push(event);
    if (this.#held.length > MAX_HELD_EVENTS) this.#held.shift();
  }

  /** The page listens: at first, or again after a gap (it has taken everything sent before it). */
  ready(): void {
    if (this.#state === 'live') return;
    this.#state = 'live';
    this.#unreceived = 0;
    const held = this.#held;
    this.#held = [];
    for (const event of held) this.#deliver(event);
  }

  /** The page reports having taken `count` more events. */
  received(count: number): void {
    this.#unreceived = Math.max(0, this.#unreceived - count);
  }

  /** The page is being replaced: hold events again until the new one is ready. */
  reset(): void {
    this.#state = 'holding';
    this.#held = [];
    this.#unreceived = 0;
  }

  #deliver(event: CoreEvent): void {
    if (this.#unreceived >= MAX_UNRECEIVED_EVENTS) {
      this.#state = 'behind';
      this.sendGap();
      return;
    }
    this.#unreceived += 1;
    this.send(event);
  }
}

/** The one check of a `meshdesk:received` payload: a whole count the preload can have sent. */
export function parseReceivedCount(payload: unknown): number {
  if (!Number.isSafeInteger(payload) || (payload as number) < 1 || (payload as number) > EVENTS_PER_RECEIPT) {
    throw new IpcRequestError(`${IpcChannel.received} refused: the payload must be a whole number from 1 to ${EVENTS_PER_RECEIPT}, got ${describe(payload)}`);
  }
  return payload as number;
}

export interface IpcBridgeOptions {
  /** The core's API, called in-process (core.api). */
  api: { request(request: ApiRequest): Promise<ApiResponse> };
  /** The core's event bus (core.events). */
  events: { subscribe(listener: (event: CoreEvent) => void): () => void };
  window: { webContents: WebContents };
  origin: AppOrigin;
}

/**
 * The main side of the MeshdeskBridge: `meshdesk:request` answers API calls from the app's page,
 * `meshdesk:ready` starts the event pushes. Nothing else is reachable over IPC. Registering again
 * replaces the handlers (as Fiddle's IpcMainManager does). Returns the function that removes them.
 */
export function registerIpcBridge(
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler' | 'on' | 'removeListener' | 'removeAllListeners'>,
  options: IpcBridgeOptions,
): () => void {
  const { api, events, window, origin } = options;
  const { webContents } = window;
  const trusted = { origin, webContents };
  const forwarder = new EventForwarder(
    (event) => {
      if (!webContents.isDestroyed()) webContents.send(IpcChannel.event, event);
    },
    () => {
      if (!webContents.isDestroyed()) webContents.send(IpcChannel.gap);
    },
  );

  const onRequest = async (event: IpcMainInvokeEvent, payload: unknown): Promise<ApiResponse> => {
    try {
      checkSender(event, trusted, IpcChannel.request);
      return await api.request(parseApiRequest(payload));
    } catch (error) {
      if (error instanceof IpcRequestError) console.warn(`meshdesk: ${error.message}`);
      throw error;
    }
  };
  const onReady = (event: IpcMainEvent): void => {
    try {
      checkSender(event, trusted, IpcChannel.ready);
      forwarder.ready();
    } catch (error) {
      console.warn(`meshdesk: ${(error as Error).message}`);
    }
  };
  const onReceived = (event: IpcMainEvent, payload: unknown): void => {
    try {
      checkSender(event, trusted, IpcChannel.received);
      forwarder.received(parseReceivedCount(payload));
    } catch (error) {
      console.warn(`meshdesk: ${(error as Error).message}`);
    }
  };
  const onNavigation = (details: { isMainFrame: boolean; isSameDocument: boolean }): void => {
    if (details.isMainFrame && !details.isSameDocument) forwarder.reset();
  };

  ipcMain.removeHandler(IpcChannel.request);
  ipcMain.handle(IpcChannel.request, onRequest);
  ipcMain.removeAllListeners(IpcChannel.ready);
  ipcMain.on(IpcChannel.ready, onReady);
  ipcMain.removeAllListeners(IpcChannel.received);
  ipcMain.on(IpcChannel.received, onReceived);
  webContents.on('did-start-navigation', onNavigation);
  const unsubscribe = events.subscribe((event) => forwarder.push(event));
  const dispose = (): void => {
    unsubscribe();
    ipcMain.removeHandler(IpcChannel.request);
    ipcMain.removeListener(IpcChannel.ready, onReady);
    ipcMain.removeListener(IpcChannel.received, onReceived);
    if (!webContents.isDestroyed()) webContents.off('did-start-navigation', onNavigation);
  };
  webContents.once('destroyed', dispose);
  return dispose;
}
