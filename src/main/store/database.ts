import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { StorageFaultError, storageFaultKind } from './errors.js';
import { migrate } from './migrations.js';

export type Db = Database.Database;

/**
 * How long one statement waits for another process's write lock before failing with SQLITE_BUSY,
 * once the core runs. better-sqlite3 is synchronous, so this wait stops the whole event loop (every
 * ADS stream and the API): it stays a few ms, and the waiting beyond it is done asynchronously by
 * the writers that retry (GroupCommit, the snapshot history).
 */
export const BUSY_TIMEOUT_MS = 5;

/**
 * The same wait while the database is opened and migrated: nothing is served yet, so blocking
 * costs nobody anything, and a backup tool holding the lock for a moment should not stop a start.
 */
const OPEN_BUSY_TIMEOUT_MS = 5_000;

export interface DatabaseOptions {
  /**
   * Path of a better-sqlite3 addon to load instead of the one in node_modules. Node and Electron
   * need builds for different ABIs, so the Electron shell passes its own copy (SPEC §1).
   */
  nativeBinding?: string | undefined;
}

/**
 * Opens (creating if needed) the meshdesk database, checks that it is intact and brings its
 * schema up to date. WAL lets the UI's reads run beside the control plane's writes;
 * `synchronous = FULL` makes every acknowledged write survive a crash or power loss (a local tool
 * writes little, so the extra fsync per commit is cheap).
 * @throws StorageFaultError (kind `corrupt`) naming the file and what to do, for a damaged file
 */
export function openDatabase(file: string, options: DatabaseOptions = {}): Db {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, options.nativeBinding === undefined ? {} : { nativeBinding: options.nativeBinding });
  try {
    db.pragma(`busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // A WAL file a burst of writes grew is cut back to this at the next checkpoint.
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    checkIntact(db, file);
    giveSpaceBack(db);
    migrate(db);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
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
