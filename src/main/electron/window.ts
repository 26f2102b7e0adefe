import type { BrowserWindow, BrowserWindowConstructorOptions, Session, Shell } from './electron-types.js';
import type { AppOrigin } from './app-origin.js';
import { contentSecurityPolicyListener } from './content-security-policy.js';

// Electron's modules are passed in by the shell (src/main/index.ts): this file then loads in Node
// tests, where `import 'electron'` cannot work because the Electron binary cannot be downloaded.
export interface WindowElectron {
  BrowserWindow: new (options: BrowserWindowConstructorOptions) => BrowserWindow;
  shell: Pick<Shell, 'openExternal'>;
}

/** The main window's options: the renderer is an untrusted web page with one bridge (SPEC §9). */
export function windowOptions(preload: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    minWidth: 900,
    minHeight: 600,
    title: 'meshdesk',
    show: false,
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  };
}

/** Links the user may follow out of the app, in their browser. */
const EXTERNAL_SCHEMES: ReadonlySet<string> = new Set(['https:', 'http:']);

export function isExternalLink(url: string): boolean {
  try {
    return EXTERNAL_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** For `will-navigate` and `will-frame-navigate`: the window only ever shows the app's own pages. */
export function navigationGuard(origin: AppOrigin) {
  return (event: { url: string; preventDefault(): void }): void => {
    if (origin.contains(event.url)) return;
    event.preventDefault();
    console.warn(`meshdesk: blocked navigation to ${event.url}`);
  };
}

/** For `setWindowOpenHandler`: no new windows, ever; a web link opens in the user's browser instead. */
export function windowOpenHandler(openExternal: (url: string) => Promise<void>) {
  return ({ url }: { url: string }): { action: 'deny' } => {
    if (isExternalLink(url)) {
      openExternal(url).catch((error: unknown) => console.warn(`meshdesk: could not open ${url}:`, error));
    }
    return { action: 'deny' };
  };
}

/** The one permission the UI uses (its copy buttons), for the app's own pages; everything else is refused. */
const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export function isPermissionGranted(origin: AppOrigin, permission: string, requestingUrl: string): boolean {
  return GRANTED_PERMISSIONS.has(permission) && origin.contains(requestingUrl);
}

/**
 * The main window, configured and guarded but not yet loaded: the shell registers its IPC handlers
 * first, so the page never calls a channel nobody answers.
 */
export function createMainWindow(electron: WindowElectron, options: { origin: AppOrigin; preload: string }): BrowserWindow {
  const { origin } = options;
  const window = new electron.BrowserWindow(windowOptions(options.preload));
  const { webContents } = window;
  guardSession(webContents.session, origin);
  const guard = navigationGuard(origin);
  webContents.on('will-navigate', guard);
  webContents.on('will-frame-navigate', guard);
  webContents.on('will-attach-webview', (event) => event.preventDefault());
  // Reviewed: windowOpenHandler passes only http(s) URLs (isExternalLink), never file: or custom schemes.
  webContents.setWindowOpenHandler(windowOpenHandler((url) => electron.shell.openExternal(url))); // eng-disable OPEN_EXTERNAL_JS_CHECK
  window.once('ready-to-show', () => window.show());
  return window;
}

function guardSession(session: Session, origin: AppOrigin): void {
  session.webRequest.onHeadersReceived(contentSecurityPolicyListener(origin));
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(isPermissionGranted(origin, permission, details.requestingUrl)),
  );
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionGranted(origin, permission, requestingOrigin));
}
