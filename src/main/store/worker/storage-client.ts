import { existsSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort, type WorkerOptions } from 'node:worker_threads';
import type { CoreEvent } from '../../../shared/events.js';
import type { BrokenRow, StorageFailure } from '../../../shared/storage-types.js';
import { StorageFaultError } from '../errors.js';
import type { CallMessage, CallName, FromWorker, NoticeName, NoticesMessage, Reply, StorageCalls, StorageNotices, StorageWorkerData } from './protocol.js';
import { deserializeError, type SerializedError } from './serialized-error.js';

/** Node has it since 16; TypeScript's lib only from ES2024, past this project's target. */
interface AtomicsWithWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number): { async: false } | { async: true; value: Promise<unknown> };
}

type Result<N extends CallName> = ReturnType<StorageCalls[N]>;

interface Pending {
  name: CallName;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The main thread's side of the storage worker (storage-worker.ts): sends it typed requests and
 * hands back its answers as promises, so that no read or write of the database ever holds the
 * event loop. Requests are answered in the order sent. Notices (queued writes nobody waits for)
 * of one event-loop turn go together in one message, ahead of any later request.
 */
export class StorageClient {
  readonly #worker: Worker;
  readonly #syncPort: MessagePort;
  readonly #syncSignal: Int32Array;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #notices: NoticesMessage['notices'] = [];
  #brokenRows: BrokenRow[] = [];
  readonly #eventListeners = new Set<(event: CoreEvent) => void>();
  readonly #lostListeners = new Set<(count: number, fault: StorageFailure['kind']) => void>();
  /** Set once the worker is gone: every request then fails with it. */
  #gone: Error | undefined;

  private constructor(worker: Worker, syncPort: MessagePort, syncSignal: SharedArrayBuffer) {
    this.#worker = worker;
    this.#syncPort = syncPort;
    this.#syncSignal = new Int32Array(syncSignal);
    worker.on('message', (message: FromWorker) => this.#receive(message));
    worker.on('error', (error) => this.#stopped(new Error(`the storage worker failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => this.#stopped(new Error(`the storage worker exited (code ${code})`)));
  }

  /**
   * Starts the worker, which opens (creating and migrating if needed) the database `file`.
   * @throws whatever opening the database threw, of its class (DatabaseInUseError, StorageFaultError)
   */
  static async start(file: string, options: { nativeBinding?: string | undefined } = {}): Promise<StorageClient> {
    const { port1, port2 } = new MessageChannel();
    const syncSignal = new SharedArrayBuffer(4);
    const workerData: StorageWorkerData = { file, nativeBinding: options.nativeBinding, syncPort: port2, syncSignal };
    const worker = startWorker({ workerData, transferList: [port2] });
    const opened = await new Promise<FromWorker>((resolve, reject) => {
      const receive = (message: FromWorker) => {
        if (message.kind === 'log') return console[message.level](message.text);
        worker.off('message', receive);
        worker.off('error', reject);
        resolve(message);
      };
      worker.on('message', receive);
      worker.once('error', reject);
    });
    if (opened.kind === 'open-failed') {
      await worker.terminate();
      port1.close();
      throw deserializeError(opened.error);
    }
    return new StorageClient(worker, port1, syncSignal);
  }

  call<N extends CallName>(name: N, ...args: Parameters<StorageCalls[N]>): Promise<Awaited<Result<N>>> {
    this.#postNotices();
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { name, resolve: resolve as (value: unknown) => void, reject });
      this.#worker.postMessage({ kind: 'call', id, name, args } satisfies CallMessage);
    });
  }

  /**
   * Waits for the answer, holding the event loop: only for writes the user asked for and that
   * callers need done before they return (saving settings, issuing a token), never for ADS.
   */
  callSync<N extends CallName>(name: N, ...args: Parameters<StorageCalls[N]>): Result<N> {
    if (this.#gone) throw this.#gone;
    Atomics.store(this.#syncSignal, 0, 0);
    this.#syncPort.postMessage({ kind: 'call', id: 0, name, args } satisfies CallMessage);
    Atomics.wait(this.#syncSignal, 0, 0);
    const reply = receiveMessageOnPort(this.#syncPort)!.message as Reply;
    if (!reply.ok) throw this.#failed(name, reply.error);
    return reply.value as Result<N>;
  }

  /** Queues a write nobody waits for; it goes with the others of this turn. */
  notify<N extends NoticeName>(name: N, ...args: Parameters<StorageNotices[N]>): void {
    if (this.#gone) return;
    if (this.#notices.length === 0) setImmediate(() => this.#postNotices());
    this.#notices.push({ name, args });
  }

  /** The resource rows reads found broken, as of the latest answer. */
  brokenRows(): BrokenRow[] {
    return this.#brokenRows;
  }

  /** Every resource write the worker committed, heard before the write's own answer. */
  onEvent(listener: (event: CoreEvent) => void): void {
    this.#eventListeners.add(listener);
  }

  onHistoryLost(listener: (count: number, fault: StorageFailure['kind']) => void): void {
    this.#lostListeners.add(listener);
  }

  /**
   * Blocks the worker's thread, as a stalled disk would, until `release` is called (tests and the
   * benchmark): `holding` settles once the worker is blocked, `resumed` once it runs again.
   */
  stall(): { holding: Promise<void>; release: () => void; resumed: Promise<void> } {
    const signal = new SharedArrayBuffer(8);
    const words = new Int32Array(signal);
    const resumed = this.call('stall.hold', signal);
    const waiting = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(words, 1, 0);
    return {
      holding: waiting.async ? waiting.value.then(() => undefined) : Promise.resolve(),
      release: () => {
        Atomics.store(words, 0, 1);
        Atomics.notify(words, 0);
      },
      resumed,
    };
  }

  /** Writes what is queued, closes the database and ends the worker. */
  async close(): Promise<void> {
    if (this.#gone) return;
    try {
      await this.call('close');
    } finally {
      this.#gone = new Error('the storage is closed');
      await this.#worker.terminate();
      this.#syncPort.close();
    }
  }

  #postNotices(): void {
    if (this.#notices.length === 0 || this.#gone) return;
    this.#worker.postMessage({ kind: 'notices', notices: this.#notices } satisfies NoticesMessage);
    this.#notices = [];
  }

  #receive(message: FromWorker): void {
    switch (message.kind) {
      case 'reply': {
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(this.#failed(pending.name, message.error));
        return;
      }
      case 'event':
        for (const listener of this.#eventListeners) listener(message.event);
        return;
      case 'broken-rows':
        this.#brokenRows = message.rows;
        return;
      case 'history-lost':
        for (const listener of this.#lostListeners) listener(message.count, message.fault);
        return;
      case 'log':
        console[message.level](message.text);
        return;
      default:
        return;
    }
  }

  /** The worker's error, of its class; a storage fault is logged with the SQLite error behind it. */
  #failed(name: CallName, serialized: SerializedError): Error {
    const error = deserializeError(serialized);
    if (error instanceof StorageFaultError) console.error(`storage: ${name} failed: ${error.message}`, { cause: error.cause });
    return error;
  }

  #stopped(error: Error): void {
    if (this.#gone) return;
    // Not closed by us: nothing can be read or written from now on, which the log must say.
    console.error(`storage: ${error.message}; meshdesk can no longer read or write its database, restart it`);
    this.#gone = error;
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}

/**
 * The worker from its TypeScript source beside this file when running from source (tsx, vitest),
 * through tsx's loader; in a build, from the `storage-worker` entry electron.vite.config.ts
 * emits into the main bundle's folder, which is this module's folder or its parent (shared chunks).
 */
function startWorker(options: WorkerOptions): Worker {
  if (import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./storage-worker-from-source.mjs', import.meta.url), options);
  }
  const candidates = ['./storage-worker.js', '../storage-worker.js', './storage-worker.mjs'].map((path) => new URL(path, import.meta.url));
  const built = candidates.find((url) => existsSync(url));
  if (!built) throw new Error(`the storage worker is missing from the build: none of ${candidates.map((url) => url.pathname).join(', ')} exists`);
  return new Worker(built, options);
}
