// The Electron shell: starts the same core as headless mode and shows it in one window.
// Everything else lives in the core, which never imports electron.
import { app, BrowserWindow } from 'electron';
import { fileURLToPath } from 'node:url';
import { startCore, type Core } from './core.js';
import { defaultDataDir } from './core-options.js';

let core: Core | undefined;

function createWindow(): void {
  const window = new BrowserWindow({
    width: 1280,
    height: 820,
    show: false,
    title: 'meshdesk',
    webPreferences: {
      preload: fileURLToPath(new URL('../preload/index.cjs', import.meta.url)),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  if (process.env.ELECTRON_RENDERER_URL) void window.loadURL(process.env.ELECTRON_RENDERER_URL);
  else void window.loadFile(fileURLToPath(new URL('../renderer/index.html', import.meta.url)));
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => BrowserWindow.getAllWindows()[0]?.focus());
  app.whenReady().then(async () => {
    core = await startCore({ dataDir: process.env.MESHDESK_DATA_DIR ?? defaultDataDir(), host: '127.0.0.1' });
    createWindow();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', (event) => {
    if (!core) return;
    event.preventDefault();
    const closing = core;
    core = undefined;
    void closing.close().finally(() => app.quit());
  });
}
