import { BridgeTransport, findBridge } from './bridge-transport.js';
import { MeshdeskClient } from './client.js';
import { HttpTransport } from './http-transport.js';

export { ApiRequestError, MeshdeskClient, type BootstrapKind, type KumaObject } from './client.js';
export type { ConnectionStatus } from './transport.js';

/** The one client of the page: IPC in the desktop app, HTTP + SSE in headless mode. */
export const client = new MeshdeskClient(
  (() => {
    const bridge = findBridge();
    return bridge ? new BridgeTransport(bridge) : new HttpTransport();
  })(),
);
