import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate } from './migrations.js';

export type Db = Database.Database;

export interface DatabaseOptions {
  /**
   * Path of a better-sqlite3 addon to load instead of the one in node_modules. Node and Electron
   * need builds for different ABIs, so the Electron shell passes its own copy (SPEC §1).
   */
  nativeBinding?: string | undefined;
}

/**
 * Opens (creating if needed) the meshdesk database and brings its schema up to date.
 * WAL lets the UI's reads run beside the control plane's writes; `synchronous = FULL`
 * makes every acknowledged write survive a crash or power loss (a local tool writes little,
 * so the extra fsync per commit is cheap).
 */
export function openDatabase(file: string, options: DatabaseOptions = {}): Db {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, options.nativeBinding === undefined ? {} : { nativeBinding: options.nativeBinding });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}
