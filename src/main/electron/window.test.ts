import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { AppOrigin } from './app-origin.js';
import { createMainWindow, isPermissionGranted, navigationGuard, windowOpenHandler, windowOptions } from './window.js';

const origin = AppOrigin.of(undefined);

function navigation(url: string) {
  return { url, preventDefault: vi.fn() };
}

describe('the main window', () => {
  it('isolates the renderer: context isolation and sandbox on, no Node, web security on, no webview', () => {
    const { webPreferences, show } = windowOptions('/app/out/preload/index.cjs');
    expect(webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(show).toBe(false);
  });

  it('lets the window navigate within the app only', () => {
    const guard = navigationGuard(origin);
    const inside = navigation('meshdesk://app/index.html#/proxies');
    guard(inside);
    expect(inside.preventDefault).not.toHaveBeenCalled();
    for (const url of ['https://example.com/', 'file:///etc/passwd', 'meshdesk://evil/index.html', 'http://127.0.0.1:5681/gui/', 'javascript:alert(1)']) {
      const outside = navigation(url);
      guard(outside);
      expect(outside.preventDefault, url).toHaveBeenCalledOnce();
    }
  });

  it('denies every new window and opens only http(s) links in the browser', () => {
    const openExternal = vi.fn(async () => undefined);
    const handler = windowOpenHandler(openExternal);
    for (const url of ['https://kuma.io/docs', 'http://example.com/', 'file:///etc/passwd', 'smb://share/x', 'javascript:alert(1)', 'not a url']) {
      expect(handler({ url }), url).toEqual({ action: 'deny' });
    }
    expect(openExternal.mock.calls).toEqual([['https://kuma.io/docs'], ['http://example.com/']]);
  });

  it('grants only clipboard writes, and only to the app', () => {
    expect(isPermissionGranted(origin, 'clipboard-sanitized-write', 'meshdesk://app/index.html')).toBe(true);
    expect(isPermissionGranted(origin, 'clipboard-sanitized-write', 'meshdesk://app')).toBe(true);
    expect(isPermissionGranted(origin, 'clipboard-sanitized-write', 'https://example.com/')).toBe(false);
    for (const permission of ['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen']) {
      expect(isPermissionGranted(origin, permission, 'meshdesk://app/index.html'), permission).toBe(false);
    }
  });

  it('installs every guard before anything loads, and shows the window only when ready', () => {
    // A stand-in for Electron's BrowserWindow: Electron itself cannot run on this machine.
    const created: FakeWindow[] = [];
    class FakeWindow extends EventEmitter {
      readonly webContents = Object.assign(new EventEmitter(), {
        session: {
          webRequest: { onHeadersReceived: vi.fn() },
          setPermissionRequestHandler: vi.fn(),
          setPermissionCheckHandler: vi.fn(),
        },
        setWindowOpenHandler: vi.fn(),
      });
      readonly show = vi.fn();
      constructor(readonly options: unknown) {
        super();
        created.push(this);
      }
    }
    const window = createMainWindow(
      { BrowserWindow: FakeWindow as never, shell: { openExternal: vi.fn() } },
      { origin, preload: '/app/out/preload/index.cjs' },
    ) as unknown as FakeWindow;

    expect(created).toHaveLength(1);
    expect(window.options).toEqual(windowOptions('/app/out/preload/index.cjs'));
    const { webContents } = window;
    expect(webContents.session.webRequest.onHeadersReceived).toHaveBeenCalledOnce();
    expect(webContents.session.setPermissionRequestHandler).toHaveBeenCalledOnce();
    expect(webContents.session.setPermissionCheckHandler).toHaveBeenCalledOnce();
    expect(webContents.setWindowOpenHandler).toHaveBeenCalledOnce();
    expect(webContents.listenerCount('will-navigate')).toBe(1);
    expect(webContents.listenerCount('will-frame-navigate')).toBe(1);

    const attach = navigation('about:blank');
    webContents.emit('will-attach-webview', attach);
    expect(attach.preventDefault).toHaveBeenCalledOnce();

    const permission = vi.fn();
    const requestHandler = webContents.session.setPermissionRequestHandler.mock.calls[0]![0] as (...args: unknown[]) => void;
    requestHandler(webContents, 'media', permission, { requestingUrl: 'meshdesk://app/index.html' });
    expect(permission).toHaveBeenCalledWith(false);

    expect(window.show).not.toHaveBeenCalled();
    window.emit('ready-to-show');
    expect(window.show).toHaveBeenCalledOnce();
  });
});
