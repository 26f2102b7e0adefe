import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';
import { WEB_1_OUTBOUND_YAML } from '../../../test/support/dataplanes.js';
import type { ApiResponse } from '../../shared/bridge.js';
import type { CoreEvent } from '../../shared/events.js';
import { EVENTS_PER_RECEIPT, IpcChannel } from '../../shared/ipc-channels.js';
import { AppOrigin } from './app-origin.js';
import { checkSender, EventForwarder, IpcRequestError, MAX_UNRECEIVED_EVENTS, parseApiRequest, registerIpcBridge } from './ipc.js';

const origin = AppOrigin.of(undefined);
const appFrame = { url: 'meshdesk://app/index.html#/proxies', parent: null };

// Stand-ins for Electron's ipcMain and a window's webContents (Electron cannot run on this
// machine); the core behind them is real.
class FakeIpcMain extends EventEmitter {
  readonly handlers = new Map<string, (event: unknown, payload: unknown) => Promise<unknown>>();
  handle(channel: string, handler: (event: unknown, payload: unknown) => Promise<unknown>): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, handler);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  invoke(sender: unknown, payload: unknown, senderFrame: unknown = appFrame): Promise<unknown> {
    return this.handlers.get(IpcChannel.request)!({ sender, senderFrame }, payload);
  }
}

class FakeWebContents extends EventEmitter {
  readonly sent: CoreEvent[] = [];
  gaps = 0;
  send(channel: string, event: CoreEvent): void {
    if (channel === IpcChannel.gap) {
      this.gaps += 1;
      return;
    }
    expect(channel).toBe(IpcChannel.event);
    this.sent.push(event);
  }
  isDestroyed(): boolean {
    return false;
  }
}

async function bridgeToRealCore() {
  const core = await startTestCore();
  const ipcMain = new FakeIpcMain();
  const webContents = new FakeWebContents();
  registerIpcBridge(ipcMain as never, { api: core.api, events: core.events, window: { webContents: webContents as never }, origin });
  return { core, ipcMain, webContents };
}

describe('IPC payload validation', () => {
  it('accepts a well-formed request and passes exactly its fields on', () => {
    expect(parseApiRequest({ method: 'GET', path: '/meshes?size=10' })).toEqual({ method: 'GET', path: '/meshes?size=10' });
    expect(parseApiRequest({ method: 'PUT', path: '/meshes/default/dataplanes/web-1', body: WEB_1_OUTBOUND_YAML })).toEqual({
      method: 'PUT',
      path: '/meshes/default/dataplanes/web-1',
      body: WEB_1_OUTBOUND_YAML,
    });
    expect(parseApiRequest({ method: 'PUT', path: '/settings', body: 'x'.repeat(1024 * 1024) }).body).toHaveLength(1024 * 1024);
  });

  const refused: [string, unknown, RegExp][] = [
    ['not an object', 'GET /meshes', /must be an object/],
    ['null', null, /must be an object.*null/],
    ['an array', ['GET', '/meshes'], /must be an object.*array/],
    ['an extra key', { method: 'GET', path: '/meshes', headers: { host: 'x' } }, /unknown key\(s\) "headers"/],
    ['a prototype-polluting key', JSON.parse('{"method":"GET","path":"/meshes","__proto__":{"x":1}}'), /unknown key\(s\) "__proto__"/],
    ['an unknown method', { method: 'PATCH', path: '/meshes' }, /method must be one of GET, PUT, POST, DELETE, got "PATCH"/],
    ['a lower-case method', { method: 'get', path: '/meshes' }, /method must be one of/],
    ['a missing method', { path: '/meshes' }, /method must be one of .*got undefined/],
    ['a numeric path', { method: 'GET', path: 42 }, /path must be a string, got number/],
    ['a relative path', { method: 'GET', path: 'meshes' }, /path must start with a single "\/"/],
    ['a protocol-relative path', { method: 'GET', path: '//evil.example/meshes' }, /path must start with a single "\/"/],
    ['a full URL', { method: 'GET', path: 'http://127.0.0.1:5681/meshes' }, /path must start with a single "\/"/],
    ['a ".." segment', { method: 'GET', path: '/meshes/../settings' }, /must not contain "\." or "\.\." segments/],
    ['an encoded ".." segment', { method: 'GET', path: '/gui/%2e%2e/secret' }, /must not contain "\." or "\.\." segments/],
    ['a backslash', { method: 'GET', path: '/meshes\\..\\x' }, /control characters, "\\" or "#"/],
    ['a control character', { method: 'GET', path: '/meshes\r\nHost: evil' }, /control characters/],
    ['broken percent-encoding', { method: 'GET', path: '/meshes/%E0%A4%A' }, /not valid percent-encoding/],
    ['a path over 2 KB', { method: 'GET', path: `/${'a'.repeat(2048)}` }, /longer than 2048 bytes/],
    ['a non-string body', { method: 'PUT', path: '/settings', body: { a: 1 } }, /body must be a string when present, got object/],
    ['a body over 1 MiB', { method: 'PUT', path: '/settings', body: 'x'.repeat(1024 * 1024 + 1) }, /body is 1048577 bytes; the limit is 1048576/],
  ];
  for (const [title, payload, message] of refused) {
    it(`refuses ${title}`, () => {
      let error: unknown;
      try {
        parseApiRequest(payload);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(IpcRequestError);
      expect((error as Error).message).toMatch(/^meshdesk:request refused: /);
      expect((error as Error).message).toMatch(message);
    });
  }
});

describe('IPC sender check', () => {
  const window = { webContents: {} };
  const trusted = { origin, webContents: window.webContents };

  it("accepts the top frame of meshdesk's window showing an app page", () => {
    expect(() => checkSender({ sender: window.webContents, senderFrame: appFrame }, trusted, 'x')).not.toThrow();
  });

  it('refuses another window, a foreign page, a sub-frame and a vanished frame', () => {
    const cases: [unknown, { url: string; parent: unknown } | null, RegExp][] = [
      [{}, appFrame, /not meshdesk's window/],
      [window.webContents, { url: 'https://evil.example/', parent: null }, /page https:\/\/evil\.example\/ is not the app's \(meshdesk:\/\/app\/index\.html\)/],
      [window.webContents, { url: 'file:///home/me/index.html', parent: null }, /is not the app's/],
      [window.webContents, { url: 'meshdesk://app/frame.html', parent: appFrame }, /sub-frame/],
      [window.webContents, null, /frame is gone/],
    ];
    for (const [sender, senderFrame, message] of cases) {
      expect(() => checkSender({ sender, senderFrame }, trusted, 'meshdesk:request')).toThrow(message);
    }
  });
});

describe('event forwarding', () => {
  const event = (version: number): CoreEvent => ({
    topic: 'resource.changed',
    change: 'updated',
    key: { type: 'Mesh', mesh: '', name: 'default' },
    version,
  });

  it('holds events until the page is ready, then delivers them in order, and holds again for a new page', () => {
    const sent: number[] = [];
    const forwarder = new EventForwarder((each) => sent.push((each as { version: number }).version));
    forwarder.push(event(1));
    forwarder.push(event(2));
    expect(sent).toEqual([]);
    forwarder.ready();
    forwarder.push(event(3));
    forwarder.ready();
    expect(sent).toEqual([1, 2, 3]);
    forwarder.reset();
    forwarder.push(event(4));
    expect(sent).toEqual([1, 2, 3]);
    forwarder.ready();
    expect(sent).toEqual([1, 2, 3, 4]);
  });

  it('holds at most 1000 events for a page that never listens, keeping the newest', () => {
    const sent: number[] = [];
    const forwarder = new EventForwarder((each) => sent.push((each as { version: number }).version));
    for (let version = 1; version <= 1500; version++) forwarder.push(event(version));
    forwarder.ready();
    expect(sent).toHaveLength(1000);
    expect(sent[0]).toBe(501);
    expect(sent.at(-1)).toBe(1500);
  });
});

describe('a page that stops taking events', () => {
  const event = (version: number): CoreEvent => ({ topic: 'resource.changed', change: 'updated', key: { type: 'Mesh', mesh: '', name: 'default' }, version });

  it(`gets at most ${MAX_UNRECEIVED_EVENTS} events, then one gap, then nothing until it is ready again`, () => {
    let sent = 0;
    let gaps = 0;
    const forwarder = new EventForwarder(() => (sent += 1), () => (gaps += 1));
    forwarder.ready();
    for (let version = 1; version <= 50_000; version++) forwarder.push(event(version));
    expect({ sent, gaps }).toEqual({ sent: MAX_UNRECEIVED_EVENTS, gaps: 1 });

    forwarder.ready(); // the page took everything up to the gap, reloaded, and listens again
    forwarder.push(event(50_001));
    expect({ sent, gaps }).toEqual({ sent: MAX_UNRECEIVED_EVENTS + 1, gaps: 1 });
  });

  it('is not one while it reports what it takes: every event arrives, however many', () => {
    let sent = 0;
    let gaps = 0;
    const forwarder = new EventForwarder(() => {
      if (++sent % EVENTS_PER_RECEIPT === 0) forwarder.received(EVENTS_PER_RECEIPT);
    }, () => (gaps += 1));
    forwarder.ready();
    for (let version = 1; version <= 50_000; version++) forwarder.push(event(version));
    expect({ sent, gaps }).toEqual({ sent: 50_000, gaps: 0 });
  });

  it('through the bridge: receipts count only from the app page, and only as whole batches', async () => {
    const { core, ipcMain, webContents } = await bridgeToRealCore();
    ipcMain.emit(IpcChannel.ready, { sender: webContents, senderFrame: appFrame });
    const publish = (count: number) => {
      for (let index = 0; index < count; index++) core.events.publish({ topic: 'settings.changed', changed: { index } });
    };
    publish(MAX_UNRECEIVED_EVENTS);
    // Neither a foreign sender nor a made-up count buys room.
    ipcMain.emit(IpcChannel.received, { sender: new FakeWebContents(), senderFrame: appFrame }, EVENTS_PER_RECEIPT);
    ipcMain.emit(IpcChannel.received, { sender: webContents, senderFrame: appFrame }, 1e9);
    publish(1);
    expect({ sent: webContents.sent.length, gaps: webContents.gaps }).toEqual({ sent: MAX_UNRECEIVED_EVENTS, gaps: 1 });

    ipcMain.emit(IpcChannel.ready, { sender: webContents, senderFrame: appFrame });
    ipcMain.emit(IpcChannel.received, { sender: webContents, senderFrame: appFrame }, EVENTS_PER_RECEIPT);
    publish(1);
    expect(webContents.sent.length).toBe(MAX_UNRECEIVED_EVENTS + 1);
  });
});

describe('the IPC bridge to a real core', () => {
  it('carries API requests in-process and answers like the HTTP API', async () => {
    const { core, ipcMain, webContents } = await bridgeToRealCore();
    const created = (await ipcMain.invoke(webContents, { method: 'PUT', path: '/meshes/default/dataplanes/web-1', body: WEB_1_OUTBOUND_YAML })) as ApiResponse;
    expect(created).toMatchObject({ status: 201, contentType: 'application/json' });
    const read = (await ipcMain.invoke(webContents, { method: 'GET', path: '/meshes/default/dataplanes/web-1' })) as ApiResponse;
    expect(JSON.parse(read.body)).toMatchObject({ type: 'Dataplane', name: 'web-1', version: 1 });
    expect(await (await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`)).json()).toEqual(JSON.parse(read.body));
    const missing = (await ipcMain.invoke(webContents, { method: 'GET', path: '/meshes/nope' })) as ApiResponse;
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ status: 404, title: 'Could not retrieve a resource', detail: 'Not found' });
  });

  it('refuses a malformed payload or a foreign sender before the core sees it', async () => {
    const { core, ipcMain, webContents } = await bridgeToRealCore();
    const put = { method: 'PUT', path: '/meshes/default/dataplanes/web-1', body: WEB_1_OUTBOUND_YAML };
    await expect(ipcMain.invoke(webContents, { ...put, extra: true })).rejects.toThrow(/unknown key\(s\) "extra"/);
    await expect(ipcMain.invoke(new FakeWebContents(), put)).rejects.toThrow(/not meshdesk's window/);
    await expect(ipcMain.invoke(webContents, put, { url: 'https://evil.example/', parent: null })).rejects.toThrow(/is not the app's/);
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes`)).ok).toBe(true);
    expect(await (await fetch(`${core.api.url}/meshes/default/dataplanes`)).json()).toMatchObject({ total: 0 });
  });

  /** A mesh without Kuma's initial policies, whose creation would be four more events. */
  const DEMO_MESH = '{"type":"Mesh","name":"demo","skipCreatingInitialPolicies":["*"]}';

  it('pushes core events to the window once its page is ready, in order, and not from a foreign sender', async () => {
    const { ipcMain, webContents } = await bridgeToRealCore();
    await ipcMain.invoke(webContents, { method: 'PUT', path: '/meshes/demo', body: DEMO_MESH });
    expect(webContents.sent).toEqual([]);
    ipcMain.emit(IpcChannel.ready, { sender: new FakeWebContents(), senderFrame: appFrame });
    expect(webContents.sent).toEqual([]);
    ipcMain.emit(IpcChannel.ready, { sender: webContents, senderFrame: appFrame });
    await ipcMain.invoke(webContents, { method: 'DELETE', path: '/meshes/demo' });
    expect(webContents.sent.map((event) => event.topic === 'resource.changed' && `${event.change} ${event.key.name}`)).toEqual([
      'created demo',
      'deleted demo',
    ]);
  });

  it('holds events again while the window loads a new page', async () => {
    const { ipcMain, webContents } = await bridgeToRealCore();
    ipcMain.emit(IpcChannel.ready, { sender: webContents, senderFrame: appFrame });
    webContents.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false });
    await ipcMain.invoke(webContents, { method: 'PUT', path: '/meshes/demo', body: DEMO_MESH });
    expect(webContents.sent).toEqual([]);
    ipcMain.emit(IpcChannel.ready, { sender: webContents, senderFrame: appFrame });
    expect(webContents.sent).toHaveLength(1);
  });

  it('answers the HTTP-only event stream with a pointer to subscribe', async () => {
    const { ipcMain, webContents } = await bridgeToRealCore();
    const answer = (await ipcMain.invoke(webContents, { method: 'GET', path: '/events' })) as ApiResponse;
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body).details).toContain('window.meshdesk.subscribe');
  });

  it('registers again without a duplicate handler', async () => {
    const { core, ipcMain, webContents } = await bridgeToRealCore();
    registerIpcBridge(ipcMain as never, { api: core.api, events: core.events, window: { webContents: webContents as never }, origin });
    expect(ipcMain.handlers.size).toBe(1);
    expect(ipcMain.listenerCount(IpcChannel.ready)).toBe(1);
  });
});
