import { join } from 'node:path';
import { openDatabase, type Db } from '../../src/main/store/database.js';
import { tempDir } from './temp-dir.js';
import { onScopeFinished } from './test-scope.js';

export interface TempDatabase {
  /** A fresh temp folder, removed once the connections to the database are closed: a data directory. */
  dir: string;
  /** meshdesk.db in `dir`. */
  file: string;
  /** A connection to `file`, closed when the test finishes unless the test closed it first; one at a time, since each holds the file alone. */
  open(): Db;
}

/** A database file of its own for the running test (or, from a beforeAll, for the file's tests). */
export function tempDatabase(): TempDatabase {
  const dir = tempDir();
  const file = join(dir, 'meshdesk.db');
  return {
    dir,
    file,
    open() {
      const db = openDatabase(file);
      // Registered after the folder's removal, so run before it: cleanups run last first.
      onScopeFinished(() => {
        if (db.open) db.close();
      });
      return db;
    },
  };
}
