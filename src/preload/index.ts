// The renderer's only door to the main process (SPEC §9): `window.meshdesk`, two verbs on two
// channels. Neither ipcRenderer nor the IPC event object ever reaches the page; main validates
// every payload and its sender again (src/main/electron/ipc.ts).
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ApiRequest, ApiResponse, MeshdeskBridge } from '../shared/bridge.js';
import type { CoreEvent } from '../shared/events.js';
import { EVENTS_PER_RECEIPT, IpcChannel } from '../shared/ipc-channels.js';

const bridge: MeshdeskBridge = {
  request(request: ApiRequest): Promise<ApiResponse> {
    return ipcRenderer.invoke(IpcChannel.request, request) as Promise<ApiResponse>;
  },

  subscribe(listener: (event: CoreEvent) => void, onGap?: () => void): () => void {
    // Receipts let main stop pushing to a page that stopped taking events (a busy or hung renderer).
    let taken = 0;
    const forward = (_event: IpcRendererEvent, coreEvent: CoreEvent) => {
      listener(coreEvent);
      if (++taken < EVENTS_PER_RECEIPT) return;
      ipcRenderer.send(IpcChannel.received, taken);
      taken = 0;
    };
    const gap = () => {
      taken = 0;
      onGap?.();
      ipcRenderer.send(IpcChannel.ready);
    };
    ipcRenderer.on(IpcChannel.event, forward);
    ipcRenderer.on(IpcChannel.gap, gap);
    // The handshake: main holds events back until the page listens, then sends them in order.
    ipcRenderer.send(IpcChannel.ready);
    return () => {
      ipcRenderer.removeListener(IpcChannel.event, forward);
      ipcRenderer.removeListener(IpcChannel.gap, gap);
    };
  },
};

contextBridge.exposeInMainWorld('meshdesk', bridge);
