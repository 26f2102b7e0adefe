import type { ApiRequest, ApiResponse } from '../../../../shared/bridge.js';
import type { CoreEvent } from '../../../../shared/events.js';

/** Whether live events are flowing: `offline` means the core is unreachable (events resume on reconnect). */
export type ConnectionStatus = 'connecting' | 'live' | 'offline';

/**
 * How the client reaches the core. Both transports carry the same HTTP API (paths, methods,
 * JSON bodies), so everything above this interface is transport-agnostic.
 */
export interface Transport {
  readonly name: 'http' | 'ipc';
  request(request: ApiRequest): Promise<ApiResponse>;
  /** Live core events; `onStatus` hears connection changes. Returns the unsubscribe function. */
  subscribe(listener: (event: CoreEvent) => void, onStatus: (status: ConnectionStatus) => void): () => void;
}
