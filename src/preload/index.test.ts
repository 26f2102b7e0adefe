import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MeshdeskBridge } from '../shared/bridge.js';
import type { CoreEvent } from '../shared/events.js';
import { EVENTS_PER_RECEIPT, IpcChannel } from '../shared/ipc-channels.js';

// A stubbed `electron`: the preload only runs inside Electron, whose binary cannot be downloaded on
// this machine. The stub records what the preload exposes and which channels it uses.
const electron = vi.hoisted(() => {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  return {
    listeners,
    exposed: new Map<string, unknown>(),
    invoke: vi.fn(async (_channel: string, _payload: unknown) => ({ status: 200, contentType: 'application/json', body: '{}' })),
    send: vi.fn(),
  };
});

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => electron.exposed.set(key, api) },
  ipcRenderer: {
    invoke: electron.invoke,
    send: electron.send,
    on: (channel: string, listener: (...args: unknown[]) => void) => {
      if (!electron.listeners.has(channel)) electron.listeners.set(channel, new Set());
      electron.listeners.get(channel)!.add(listener);
    },
    removeListener: (channel: string, listener: (...args: unknown[]) => void) => electron.listeners.get(channel)?.delete(listener),
  },
}));

async function loadPreload(): Promise<MeshdeskBridge> {
  await import('./index.js');
  return electron.exposed.get('meshdesk') as MeshdeskBridge;
}

function emit(event: CoreEvent): void {
  const ipcEvent = { sender: 'the ipcRenderer, which must never reach the page' };
  for (const listener of electron.listeners.get(IpcChannel.event) ?? []) listener(ipcEvent, event);
}

const event: CoreEvent = { topic: 'settings.changed', changed: { 'store.cache.expirationTime': '2s' } };

describe('the preload', () => {
  beforeEach(() => {
    electron.listeners.clear();
    electron.send.mockClear();
    electron.invoke.mockClear();
  });

  it('exposes window.meshdesk with exactly request and subscribe, and nothing else', async () => {
    const bridge = await loadPreload();
    expect([...electron.exposed.keys()]).toEqual(['meshdesk']);
    expect(Object.keys(bridge).sort()).toEqual(['request', 'subscribe']);
  });

  it('carries a request over meshdesk:request only', async () => {
    const bridge = await loadPreload();
    const response = await bridge.request({ method: 'GET', path: '/meshes' });
    expect(response.status).toBe(200);
    expect(electron.invoke.mock.calls).toEqual([[IpcChannel.request, { method: 'GET', path: '/meshes' }]]);
  });

  it('hands the listener the core event alone, says it is ready, and unsubscribes', async () => {
    const bridge = await loadPreload();
    const received: unknown[][] = [];
    const unsubscribe = bridge.subscribe((...args) => received.push(args));
    expect(electron.send.mock.calls).toEqual([[IpcChannel.ready]]);
    emit(event);
    expect(received).toEqual([[event]]);
    unsubscribe();
    emit(event);
    expect(received).toHaveLength(1);
    expect(electron.listeners.get(IpcChannel.event)?.size).toBe(0);
  });

  it(`reports every ${EVENTS_PER_RECEIPT} events taken, and on a gap tells the page and says it is ready again`, async () => {
    const bridge = await loadPreload();
    let gaps = 0;
    bridge.subscribe(() => {}, () => (gaps += 1));
    for (let index = 0; index < 2 * EVENTS_PER_RECEIPT + 1; index++) emit(event);
    expect(electron.send.mock.calls).toEqual([[IpcChannel.ready], [IpcChannel.received, EVENTS_PER_RECEIPT], [IpcChannel.received, EVENTS_PER_RECEIPT]]);

    for (const listener of electron.listeners.get(IpcChannel.gap) ?? []) listener({ sender: 'ipcRenderer' });
    expect(gaps).toBe(1);
    expect(electron.send.mock.calls.at(-1)).toEqual([IpcChannel.ready]);
  });
});
