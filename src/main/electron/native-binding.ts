import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * better-sqlite3 built for Electron's ABI lives apart from node_modules (whose build is for Node,
 * which the tests, headless mode and the CLI use). `scripts/electron-native.ts` makes it here,
 * relative to the project root; electron-builder copies it to `<resources>/native/`.
 */
export const ELECTRON_NATIVE_DIR = join('build', 'electron-native');
export const NATIVE_BINDING_FILE = 'better_sqlite3.node';

export class NativeBindingError extends Error {
  override readonly name = 'NativeBindingError';
}

/** Where the running app finds its Electron-ABI better-sqlite3; throws saying how to build it when it is missing. */
export function electronNativeBinding(app: { isPackaged: boolean; getAppPath(): string }, resourcesPath: string): string {
  const file = app.isPackaged
    ? join(resourcesPath, 'native', NATIVE_BINDING_FILE)
    : join(app.getAppPath(), ELECTRON_NATIVE_DIR, NATIVE_BINDING_FILE);
  if (!existsSync(file)) {
    throw new NativeBindingError(
      app.isPackaged
        ? `${file} is missing: this build of meshdesk is incomplete; reinstall it`
        : `${file} is missing: build better-sqlite3 for Electron with \`npm run electron:native\` (\`npm start\` does it first)`,
    );
  }
  return file;
}
