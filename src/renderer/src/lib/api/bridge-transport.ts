import type { ApiRequest, ApiResponse, MeshdeskBridge } from '../../../../shared/bridge.js';
import type { CoreEvent } from '../../../../shared/events.js';
import type { ConnectionStatus, Transport } from './transport.js';

/** The desktop app: the preload's `window.meshdesk` carries the same API over IPC. */
export class BridgeTransport implements Transport {
  readonly name = 'ipc';

  constructor(private readonly bridge: MeshdeskBridge) {}

  request(request: ApiRequest): Promise<ApiResponse> {
    return this.bridge.request(request);
  }

  subscribe(listener: (event: CoreEvent) => void, onStatus: (status: ConnectionStatus) => void): () => void {
    // The core lives in the same app: while the window exists, it is reachable.
    onStatus('live');
    // Events were dropped while the page was too busy to take them: views reload on 'live'.
    return this.bridge.subscribe(listener, () => {
      onStatus('offline');
      onStatus('live');
    });
  }
}

/** The bridge, when the preload provided one. */
export function findBridge(): MeshdeskBridge | undefined {
  return (globalThis as { meshdesk?: MeshdeskBridge }).meshdesk;
}
