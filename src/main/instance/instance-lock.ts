import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The file in the data directory that says which meshdesk owns it. */
export const LOCK_FILE = 'meshdesk.lock';

/** What the lock file holds: who owns the data directory, and where it serves once its listeners are bound. */
export interface InstanceInfo {
  pid: number;
  hostname: string;
  /** ISO time the owner took the lock. */
  startedAt: string;
  /** `host:port` of the HTTP API; absent while the owner is still starting. */
  apiAddress?: string;
  /** `host:port` of the ADS server; absent while the owner is still starting. */
  adsAddress?: string;
}

/** The data directory belongs to another meshdesk that is running: says which, and what to do. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly owner: InstanceInfo,
  ) {
    const where = owner.hostname === hostname() ? `pid ${owner.pid}` : `pid ${owner.pid} on host ${owner.hostname}`;
    const serving =
      owner.apiAddress && owner.adsAddress
        ? `serving the API on ${owner.apiAddress} and ADS on ${owner.adsAddress}`
        : `still starting since ${owner.startedAt}`;
    super(
      `data directory ${dataDir} is in use by meshdesk (${where}) ${serving}; stop it or choose another --data-dir` +
        ` (if no meshdesk runs, delete ${join(dataDir, LOCK_FILE)})`,
    );
  }
}

/** The lock file exists but is not one meshdesk wrote: nobody can tell whether its owner runs. */
export class UnreadableLockError extends Error {
  override readonly name = 'UnreadableLockError';
}

/**
 * One data directory belongs to one running meshdesk. The lock file is created atomically with
 * its content (written to a private file, then hard-linked into place: the link fails if the
 * lock exists, like O_EXCL, and nobody ever reads a half-written lock). A lock whose process is
 * gone from this host is stale and taken over; `takenOver` then names it, so that start-up knows
 * the previous owner is really gone.
 */
export class InstanceLock {
  readonly #file: string;
  #info: InstanceInfo;
  #held = true;
  readonly #releaseOnExit = () => this.release();

  private constructor(
    readonly dataDir: string,
    info: InstanceInfo,
    /** The stale lock this one replaced, when the previous owner died without releasing it. */
    readonly takenOver: InstanceInfo | undefined,
  ) {
    this.#file = join(dataDir, LOCK_FILE);
    this.#info = info;
    // A process that exits without closing the core (an uncaught error) still frees its directory.
    process.once('exit', this.#releaseOnExit);
  }

  /** Takes the data directory (creating it if needed), or throws DataDirInUseError naming its owner. */
  static acquire(dataDir: string): InstanceLock {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, LOCK_FILE);
    const info: InstanceInfo = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() };
    let takenOver: InstanceInfo | undefined;
    // Each round either creates the lock, refuses, or removes a stale lock; a few rounds cover
    // another starter racing for the same stale lock.
    for (let attempt = 0; attempt < 5; attempt++) {
      if (createExclusive(file, info)) return new InstanceLock(dataDir, info, takenOver);
      const read = readLock(file);
      if (read === undefined) continue; // released between our attempt and the read
      if (isAlive(read.info)) throw new DataDirInUseError(dataDir, read.info);
      if (removeStale(file, read.text)) takenOver = read.info;
    }
    throw new Error(`cannot take the lock ${file}: other meshdesk processes keep starting on ${dataDir}`);
  }

  /** The owner of the data directory, if a live meshdesk holds it. */
  static owner(dataDir: string): InstanceInfo | undefined {
    const read = readLock(join(dataDir, LOCK_FILE));
    return read && isAlive(read.info) ? read.info : undefined;
  }

  get info(): InstanceInfo {
    return this.#info;
  }

  /** Records where the listeners are bound, so that a second start and the CLI can name them. */
  recordAddresses(addresses: { apiAddress: string; adsAddress: string }): void {
    if (!this.#held) return;
    this.#info = { ...this.#info, ...addresses };
    const temporary = `${this.#file}.${process.pid}.tmp`;
    writeDurably(temporary, this.#info);
    renameSync(temporary, this.#file); // atomic replace: readers see the old or the new content
  }

  /** Frees the data directory. Idempotent; removes the lock only while it is still ours. */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    process.off('exit', this.#releaseOnExit);
    const current = readLock(this.#file);
    if (current?.info.pid === this.#info.pid && current.info.startedAt === this.#info.startedAt) {
      unlinkSync(this.#file);
    }
  }
}

function createExclusive(file: string, info: InstanceInfo): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  writeDurably(temporary, info);
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

/** fsync before the link or rename: after a power loss the lock is whole or absent, never empty. */
function writeDurably(file: string, info: InstanceInfo): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, `${JSON.stringify(info, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function readLock(file: string): { text: string; info: InstanceInfo } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const info = parseInfo(text);
  if (!info) {
    throw new UnreadableLockError(`${file} is not a meshdesk lock file; if no meshdesk runs on this data directory, delete it`);
  }
  return { text, info };
}

function parseInfo(text: string): InstanceInfo | undefined {
  try {
    const value = JSON.parse(text) as Partial<InstanceInfo>;
    if (Number.isInteger(value.pid) && typeof value.hostname === 'string' && typeof value.startedAt === 'string') {
      return value as InstanceInfo;
    }
  } catch {
    // not JSON: reported by the caller
  }
  return undefined;
}

/**
 * A process on another host cannot be checked from here: it is taken to be alive. On this host,
 * signal 0 checks for the process without touching it (EPERM: it exists but is someone else's).
 */
function isAlive(info: InstanceInfo): boolean {
  if (info.hostname !== hostname()) return true;
  try {
    process.kill(info.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a stale lock, unless it changed since it was read (another starter took it over first):
 * renaming it aside is atomic, and only the starter whose rename moved the stale content deletes
 * it; one that moved a fresh lock puts it back.
 */
function removeStale(file: string, staleText: string): boolean {
  const aside = `${file}.${process.pid}.stale`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if (readFileSync(aside, 'utf8') === staleText) {
    unlinkSync(aside);
    return true;
  }
  // Moved another starter's fresh lock: put it back where it was, unless a third one got in between.
  try {
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  unlinkSync(aside);
  return false;
}
