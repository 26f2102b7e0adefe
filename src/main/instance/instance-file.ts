import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, watch, writeSync, type FSWatcher } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * The file in the data directory that says which meshdesk owns it and where it serves. It is
 * information, not the lock: the lock is the database's, held by the kernel (`store/database.ts`).
 * Its name stays the one older meshdesk versions took as their lock, so they still refuse to start
 * beside a running meshdesk.
 */
export const INSTANCE_FILE = 'meshdesk.lock';

/** What the instance file holds: who owns the data directory, and where it serves once its listeners are bound. */
export interface InstanceInfo {
  pid: number;
  hostname: string;
  /** ISO time the owner took the data directory. */
  startedAt: string;
  /** `host:port` of the HTTP API; absent while the owner is still starting. */
  apiAddress?: string;
  /** `host:port` of the ADS server; absent while the owner is still starting. */
  adsAddress?: string;
}

/**
 * The data directory's database is held by another process: says by whom and where it serves when
 * the instance file names a live meshdesk, else only that another process holds the database.
 */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly databaseFile: string,
    /** The live meshdesk the instance file names, if it names one. */
    readonly owner: InstanceInfo | undefined,
    options?: ErrorOptions,
  ) {
    super(`data directory ${dataDir} is in use by ${owner ? describeOwner(owner) : `another process that holds its database ${databaseFile}`}; stop it or choose another --data-dir`, options);
  }
}

function describeOwner(owner: InstanceInfo): string {
  const where = owner.hostname === hostname() ? `pid ${owner.pid}` : `pid ${owner.pid} on host ${owner.hostname}`;
  const serving =
    owner.apiAddress && owner.adsAddress ? `serving the API on ${owner.apiAddress} and ADS on ${owner.adsAddress}` : `still starting since ${owner.startedAt}`;
  return `meshdesk (${where}) ${serving}`;
}

/**
 * This process's instance file, written once it holds the database (so whatever file was there
 * is a previous owner's, which is gone) and kept there while it runs: a deleted or overwritten
 * file is written again, so a refused start can always say where this meshdesk serves.
 */
export class InstanceFile {
  readonly #dataDir: string;
  readonly #file: string;
  #info: InstanceInfo;
  #watcher: FSWatcher | undefined;
  readonly #removeOnExit = () => this.remove();

  private constructor(
    dataDir: string,
    info: InstanceInfo,
    /** The file a previous owner left, when it died without removing it. */
    readonly previous: InstanceInfo | undefined,
  ) {
    this.#dataDir = dataDir;
    this.#file = join(dataDir, INSTANCE_FILE);
    this.#info = info;
    this.#write();
    // A process that exits without closing the core (an uncaught error) leaves no file naming it.
    process.once('exit', this.#removeOnExit);
  }

  /** Call only while holding the data directory's database. */
  static write(dataDir: string): InstanceFile {
    const info: InstanceInfo = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() };
    return new InstanceFile(dataDir, info, readInstanceInfo(dataDir));
  }

  get info(): InstanceInfo {
    return this.#info;
  }

  /** Records where the listeners are bound, so that a refused start and the CLI can name them. */
  recordAddresses(addresses: { apiAddress: string; adsAddress: string }): void {
    this.#info = { ...this.#info, ...addresses };
    this.#write();
  }

  /** Stops keeping the file and removes it. Call before the database is closed: the file is ours only while we hold it. */
  remove(): void {
    process.off('exit', this.#removeOnExit);
    this.#watcher?.close();
    this.#watcher = undefined;
    try {
      unlinkSync(this.#file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  /**
   * Written whole to a private file, then renamed into place (readers see the old or the new
   * content, never half of it; fsync first, so a power loss leaves it whole or absent), and
   * watched again: the watch follows the file, not its name.
   */
  #write(): void {
    this.#watcher?.close();
    const temporary = `${this.#file}.${process.pid}.tmp`;
    const fd = openSync(temporary, 'w');
    try {
      writeSync(fd, `${JSON.stringify(this.#info, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, this.#file);
    this.#watcher = watch(this.#file, { persistent: false }, () => this.#restoreIfChanged());
    // A file system without change notification leaves the file unwatched: it is information only.
    this.#watcher.on('error', () => this.#watcher?.close());
  }

  #restoreIfChanged(): void {
    if (this.#watcher === undefined) return; // removed meanwhile
    try {
      if (JSON.stringify(readInstanceInfo(this.#dataDir)) !== JSON.stringify(this.#info)) this.#write();
    } catch (error) {
      // The directory itself may be gone or read-only: the file is information, the core goes on.
      this.#watcher?.close();
      this.#watcher = undefined;
      console.warn(`meshdesk: cannot write ${this.#file} again (${(error as Error).message}); a refused start will not say where this meshdesk serves`);
    }
  }
}

/** The instance file's content; undefined when there is none or it is not one meshdesk wrote (it is information only). */
export function readInstanceInfo(dataDir: string): InstanceInfo | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, INSTANCE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<InstanceInfo>;
    if (Number.isInteger(value.pid) && typeof value.hostname === 'string' && typeof value.startedAt === 'string') return value as InstanceInfo;
  } catch {
    // not JSON: no information
  }
  return undefined;
}

/**
 * The meshdesk the instance file names, if its process is running: a hint to find the running
 * meshdesk's addresses, never a decision about the data directory (a reused pid looks alive).
 * A process on another host cannot be checked from here: it is taken to be alive. On this host,
 * signal 0 checks for the process without touching it (EPERM: it exists but is someone else's).
 */
export function runningOwner(dataDir: string): InstanceInfo | undefined {
  const info = readInstanceInfo(dataDir);
  if (!info || info.hostname !== hostname()) return info;
  try {
    process.kill(info.pid, 0);
    return info;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? info : undefined;
  }
}
