// The Electron shell: one window onto the same core headless mode runs. The core never imports
// electron; everything Electron-specific is in ./electron/ and wired here, in this order.
import { app, BrowserWindow, dialog, ipcMain, protocol, shell } from 'electron';
import { fileURLToPath } from 'node:url';
import { startCore, type Core } from './core.js';
import { APP_SCHEME, AppOrigin } from './electron/app-origin.js';
import { APP_SCHEME_PRIVILEGES, appProtocolHandler } from './electron/app-protocol.js';
import { registerIpcBridge } from './electron/ipc.js';
import { electronNativeBinding } from './electron/native-binding.js';
import { createMainWindow } from './electron/window.js';

const outDir = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
let core: Core | undefined;
let mainWindow: BrowserWindow | undefined;

async function start(): Promise<void> {
  const origin = AppOrigin.of(app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL);
  protocol.handle(APP_SCHEME, appProtocolHandler(outDir('renderer')));
  core = await startCore({
    dataDir: process.env.MESHDESK_DATA_DIR ?? app.getPath('userData'),
    host: '127.0.0.1',
    nativeBinding: electronNativeBinding(app, process.resourcesPath),
  });
  mainWindow = createMainWindow({ BrowserWindow, shell }, { origin, preload: outDir('preload/index.cjs') });
  registerIpcBridge(ipcMain, { api: core.api, events: core.events, window: mainWindow, origin });
  await mainWindow.loadURL(origin.entryUrl);
}

/** A taken port, an unwritable data directory or a missing native module: say which, then leave. */
async function showStartupError(error: unknown): Promise<void> {
  console.error('meshdesk could not start:', error);
  dialog.showErrorBox('meshdesk could not start', error instanceof Error ? error.message : String(error));
  await core?.close().catch(() => undefined);
  app.exit(1);
}

function focusWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.focus();
}

/** Quitting waits for the core to close (listeners first, then the database), so no write is cut off. */
function stopCore(event: Electron.Event): void {
  if (!core) return;
  event.preventDefault();
  const closing = core;
  core = undefined;
  closing
    .close()
    .catch((error: unknown) => console.error('meshdesk did not stop cleanly:', error))
    .finally(() => app.quit());
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
  app.on('second-instance', focusWindow);
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', stopCore);
  // Ctrl-C in the terminal that ran `npm start`, or a service manager's SIGTERM: quit as the menu
  // does, so that the core closes and frees the data directory's lock.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
  app.whenReady().then(start).catch(showStartupError);
}
