import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseInUseError, StorageFaultError, storageFaultKind } from './errors.js';
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
 * Opens (creating if needed) the meshdesk database for this process alone, checks that it is
 * intact and brings its schema up to date. `synchronous = FULL` makes every acknowledged write
 * survive a crash or power loss (a local tool writes little, so the extra fsync per commit is cheap).
 *
 * The connection holds the database file's lock for its whole life (see `holdExclusively`): that
 * lock is what makes a data directory one running meshdesk's, and the operating system releases
 * it when the process dies, however it dies.
 * @throws DatabaseInUseError when another process (a running meshdesk, a sqlite3 shell) has the file open
 * @throws StorageFaultError (kind `corrupt`) naming the file and what to do, for a damaged file
 */
export function openDatabase(file: string, options: DatabaseOptions = {}): Db {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, options.nativeBinding === undefined ? {} : { nativeBinding: options.nativeBinding });
  try {
    holdExclusively(db, file);
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // A WAL file a burst of writes grew is cut back to this at the next checkpoint.
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    checkIntact(db, file);
    giveSpaceBack(db);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    if (storageFaultKind(error) === 'corrupt' && !(error instanceof StorageFaultError)) throw corrupted(file, (error as Error).message);
    throw error;
  }
}

const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Lets pages freed by deletes be returned to the file system (`PRAGMA incremental_vacuum`, which
 * the snapshot history runs after pruning), so the file shrinks after a storm instead of keeping
 * its largest size. A new file takes the mode at once; a file made by an older meshdesk is rebuilt
 * once by VACUUM, which costs about a second per 100 MB, at this start only.
 */
function giveSpaceBack(db: Db): void {
  const INCREMENTAL = 2;
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return;
  db.pragma('auto_vacuum = INCREMENTAL');
  if (db.pragma('auto_vacuum', { simple: true }) !== INCREMENTAL) db.exec('VACUUM');
}

/**
 * `locking_mode = EXCLUSIVE` before the first WAL access: SQLite then takes the database file's
 * exclusive lock at that access and never releases it until the connection closes, and keeps the
 * WAL index in this process's memory instead of a shared `-shm` file (sqlite.org/wal.html, "WAL
 * without shared memory"). WAL still gives crash recovery: the log is replayed at the next open.
 * No busy wait: a lock held by another process is not about to be released, so the start is
 * refused at once. Once held, no other connection can take any lock, so no statement ever waits.
 */
function holdExclusively(db: Db, file: string): void {
  db.pragma('busy_timeout = 0');
  db.pragma('locking_mode = EXCLUSIVE');
  try {
    db.pragma('journal_mode = WAL'); // the first access: reads the header, so takes the lock
  } catch (error) {
    if (storageFaultKind(error) === 'locked') throw new DatabaseInUseError(file, { cause: error });
    throw error;
  }
}

/** Findings of `quick_check` quoted in the error: the first say what is wrong; hundreds would bury the advice. */
const QUICK_CHECK_FINDINGS_SHOWN = 3;

/**
 * `PRAGMA quick_check` at every start: a damaged file is reported once, clearly, before anything
 * reads from it, instead of as a stack trace from whichever query first meets the damage. It reads
 * every page (about 4 ms per MB on a loaded 2-core box: tens of ms for a typical meshdesk.db) but
 * skips the index cross-checks of `integrity_check`, which cost far more.
 */
function checkIntact(db: Db, file: string): void {
  const problems = (db.pragma('quick_check') as { quick_check: string }[]).map((row) => row.quick_check);
  if (problems.length === 1 && problems[0] === 'ok') return;
  throw corrupted(file, problems.slice(0, QUICK_CHECK_FINDINGS_SHOWN).join('; '));
}

function corrupted(file: string, findings: string): StorageFaultError {
  return new StorageFaultError(
    'corrupt',
    `database ${file} is corrupted (${findings}). Stop meshdesk, then restore the file from a backup, ` +
      `or move it (with its -wal and -shm files) aside to start with an empty database; ` +
      `\`sqlite3 ${file} .recover\` may salvage what is readable`,
  );
}
