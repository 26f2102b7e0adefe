import Database from 'better-sqlite3';
import type { ResourceKey } from '../../shared/resources.js';
import type { StorageFaultKind } from '../../shared/storage-types.js';

export type { StorageFaultKind };

const { SqliteError } = Database;

function describe(key: ResourceKey): string {
  return key.mesh ? `${key.type} "${key.name}" in mesh "${key.mesh}"` : `${key.type} "${key.name}"`;
}

export class ResourceNotFoundError extends Error {
  override readonly name = 'ResourceNotFoundError';
  constructor(readonly key: ResourceKey) {
    super(`${describe(key)} not found`);
  }
}

export class ResourceAlreadyExistsError extends Error {
  override readonly name = 'ResourceAlreadyExistsError';
  constructor(readonly key: ResourceKey) {
    super(`${describe(key)} already exists`);
  }
}

/** An update or delete carried a version other than the stored one: someone else wrote first. */
export class ResourceConflictError extends Error {
  override readonly name = 'ResourceConflictError';
  constructor(
    readonly key: ResourceKey,
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(
      `${describe(key)} was modified concurrently: you sent version ${expectedVersion}, the stored version is ${actualVersion}; read it again and retry`,
    );
  }
}

/** A write the resource's relations forbid, e.g. deleting a mesh that still has dataplanes. */
export class ResourcePreconditionError extends Error {
  override readonly name = 'ResourcePreconditionError';
  constructor(
    readonly key: ResourceKey,
    reason: string,
  ) {
    super(`${describe(key)}: ${reason}`);
  }
}

/**
 * A read or write the database itself refused: the disk is full, another process holds the lock,
 * or the file is damaged. The message says what happened and what the user can do about it.
 */
export class StorageFaultError extends Error {
  override readonly name = 'StorageFaultError';
  constructor(
    readonly kind: StorageFaultKind,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The database file is held by another process (a running meshdesk, or a program that opened the
 * file meanwhile): this process cannot own it. Thrown only when the database is opened.
 */
export class DatabaseInUseError extends Error {
  override readonly name = 'DatabaseInUseError';
  constructor(
    readonly file: string,
    options?: ErrorOptions,
  ) {
    super(`database ${file} is held by another process`, options);
  }
}

/** The storage fault behind `error` (a better-sqlite3 error or a StorageFaultError); undefined for anything else. */
export function storageFaultKind(error: unknown): StorageFaultKind | undefined {
  if (error instanceof StorageFaultError) return error.kind;
  if (!(error instanceof SqliteError)) return undefined;
  // Extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_IOERR_WRITE, …) share their primary code's prefix.
  const primary = /^SQLITE_[A-Z]+/.exec(error.code)?.[0];
  switch (primary) {
    case 'SQLITE_FULL':
      return 'disk-full';
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return 'locked';
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
    case 'SQLITE_FORMAT':
      return 'corrupt';
    case 'SQLITE_READONLY':
    case 'SQLITE_PERM':
      return 'read-only';
    case 'SQLITE_IOERR':
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_NOLFS':
    case 'SQLITE_PROTOCOL':
      return 'disk-error';
    case 'SQLITE_TOOBIG':
      return 'too-big';
    case 'SQLITE_NOMEM':
      return 'out-of-memory';
    default:
      return 'sqlite';
  }
}

const FAULT_EXPLANATIONS: Record<StorageFaultKind, string> = {
  'disk-full': 'disk full: the database cannot grow; free some disk space',
  locked: 'database locked by another process (a sqlite3 shell, a backup tool, another meshdesk); close it or wait',
  corrupt: 'database corrupted: stop meshdesk, then restore meshdesk.db from a backup or move it aside to start afresh',
  'read-only':
    'database read-only: meshdesk.db, its -wal file or their folder cannot be written (a disk remounted read-only, or permissions); make them writable and meshdesk writes again',
  'disk-error': 'disk error: the operating system failed a read or write of the database (a removed, full or failing disk); check the disk',
  'too-big': 'too large to store: one value is over SQLite\'s size limit; store it in smaller parts',
  'out-of-memory': 'out of memory: SQLite could not allocate what the statement needs; free memory on this machine',
  sqlite: 'database error: SQLite refused a statement, which is a meshdesk bug; please report it with this message',
};

/**
 * `error` as a StorageFaultError naming its fault and what to do, when it is one (SQLite's own
 * message stays at the end, with its code); any other error unchanged.
 */
export function asStorageFault(error: unknown): unknown {
  const kind = storageFaultKind(error);
  if (kind === undefined || error instanceof StorageFaultError) return error;
  const sqlite = error as InstanceType<typeof SqliteError>;
  return new StorageFaultError(kind, `${FAULT_EXPLANATIONS[kind]} (${sqlite.code}: ${sqlite.message})`, { cause: error });
}

/** A stored row that cannot be used as a resource: its JSON does not parse, or its spec breaks today's rules. */
export class BrokenRowError extends Error {
  override readonly name = 'BrokenRowError';
  constructor(
    readonly key: ResourceKey,
    readonly reason: string,
  ) {
    super(
      `the stored ${describe(key)} is unusable (${reason}); it is left out of listings and proxy config: ` +
        'apply a valid resource under the same name to replace it, or delete it',
    );
  }
}
