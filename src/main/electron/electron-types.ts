// The one place the shell's modules name Electron: types only, erased at build. The modules take
// Electron's objects (BrowserWindow, ipcMain, shell…) as parameters from src/main/index.ts, so they
// load, and are tested, in plain Node where Electron's binary cannot run.
export type {
  BrowserWindow,
  BrowserWindowConstructorOptions,
  CustomScheme,
  HeadersReceivedResponse,
  IpcMain,
  IpcMainEvent,
  IpcMainInvokeEvent,
  OnHeadersReceivedListenerDetails,
  Session,
  Shell,
  WebContents,
} from 'electron';
