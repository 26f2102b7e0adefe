import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { openDatabase } from '../store/database.js';
import { electronNativeBinding, NativeBindingError } from './native-binding.js';

describe("the Electron build of better-sqlite3", () => {
  it('is found under build/electron-native in development and under resources/native when packaged', () => {
    const project = tempDir();
    mkdirSync(join(project, 'build', 'electron-native'), { recursive: true });
    writeFileSync(join(project, 'build', 'electron-native', 'better_sqlite3.node'), '');
    const resources = tempDir();
    mkdirSync(join(resources, 'native'));
    writeFileSync(join(resources, 'native', 'better_sqlite3.node'), '');
    expect(electronNativeBinding({ isPackaged: false, getAppPath: () => project }, '/nowhere')).toBe(
      join(project, 'build', 'electron-native', 'better_sqlite3.node'),
    );
    expect(electronNativeBinding({ isPackaged: true, getAppPath: () => '/nowhere' }, resources)).toBe(join(resources, 'native', 'better_sqlite3.node'));
  });

  it('when missing, says how to build it', () => {
    const project = tempDir();
    expect(() => electronNativeBinding({ isPackaged: false, getAppPath: () => project }, '/nowhere')).toThrow(NativeBindingError);
    expect(() => electronNativeBinding({ isPackaged: false, getAppPath: () => project }, '/nowhere')).toThrow(/npm run electron:native/);
  });

  it('is the addon openDatabase loads when given one (here, the Node build from node_modules)', () => {
    const require = createRequire(import.meta.url);
    const addon = join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    const db = openDatabase(join(tempDir(), 'meshdesk.db'), { nativeBinding: addon });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(() => openDatabase(join(tempDir(), 'meshdesk.db'), { nativeBinding: join(tempDir(), 'missing.node') })).toThrow(/missing\.node/);
  });
});
