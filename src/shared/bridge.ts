import type { CoreEvent } from './events.js';

/**
 * The renderer's one contract with the core, whatever carries it: the HTTP API is the contract
 * (same methods, paths and JSON bodies), and in the desktop app the preload carries those requests
 * over IPC instead of TCP. So one Svelte codebase serves the app and headless mode alike.
 */
export type ApiMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

export interface ApiRequest {
  method: ApiMethod;
  /** Path and query, e.g. `/meshes/default/dataplanes?size=100`. */
  path: string;
  /** JSON or YAML text, for PUT and POST. */
  body?: string;
}

export interface ApiResponse {
  status: number;
  contentType: string;
  body: string;
  /** Extra HTTP headers (e.g. `retry-after` when the database is locked); not carried over IPC. */
  headers?: Record<string, string>;
}

/** What the preload exposes as `window.meshdesk` (one method per verb, validated again in main). */
export interface MeshdeskBridge {
  request(request: ApiRequest): Promise<ApiResponse>;
  /**
   * Live core events; returns the unsubscribe function. `onGap` hears that the page fell behind
   * and events were dropped: whatever it shows must be reloaded.
   */
  subscribe(listener: (event: CoreEvent) => void, onGap?: () => void): () => void;
}
