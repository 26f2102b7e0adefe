import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ApiError } from '../api-error.js';
import type { BodyJob, BodyJobAnswer } from './body-job.js';
import { readBodyText, rememberValidated, type BodyReaderArgs, type BodyReaderName, type BodyReaderResult } from './body-readers.js';
import { fromCrossingError } from './crossing-errors.js';

/**
 * Bodies shorter than this are read on the event loop: a worker round trip costs more than they do
 * (the YAML parser, the slowest path, takes about 2 µs a character, so 16 K is some 30 ms at worst).
 */
export const INLINE_BODY_CHARS = 16 * 1024;
/** Two threads: a large body is read while another waits, and the machine keeps a core for the loop. */
export const BODY_WORKERS = 2;
/** Large bodies waiting for a worker; more are refused with a 503 rather than held in memory. */
export const BODY_QUEUE_LIMIT = 8;
/** A 1 MiB body of 60,000 keys needs some tens of MB to parse and validate. */
const WORKER_HEAP_MB = 512;

export interface BodyReaderOptions {
  workers?: number;
  queueLimit?: number;
  inlineBelowChars?: number;
}

interface Pending {
  job: BodyJob;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface PoolWorker {
  worker: Worker;
  running?: Pending;
}

/**
 * Reads request bodies (parse and validate, body-readers.ts) where they cannot stall the event loop
 * that serves every request and proxy stream: a large one in a small fixed pool of worker threads,
 * a small one inline. What comes back is the reader's typed, validated result, or its error, of its
 * own class with its own fields (crossing-errors.ts).
 */
export class BodyReaderPool {
  readonly #size: number;
  readonly #queueLimit: number;
  readonly #inlineBelow: number;
  /** Found at once: a build without the worker's entry fails when the core starts, not at its first large body. */
  readonly #entry = workerEntry();
  readonly #workers: PoolWorker[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: BodyReaderOptions = {}) {
    this.#size = options.workers ?? BODY_WORKERS;
    this.#queueLimit = options.queueLimit ?? BODY_QUEUE_LIMIT;
    this.#inlineBelow = options.inlineBelowChars ?? INLINE_BODY_CHARS;
  }

  async read<K extends BodyReaderName>(reader: K, text: string, args: BodyReaderArgs<K>): Promise<BodyReaderResult<K>> {
    if (text.length < this.#inlineBelow) return readBodyText(reader, text, args);
    if (this.#closed) throw new ApiError(503, 'Shutting down', 'meshdesk is stopping and reads no more request bodies');
    if (this.#queue.length >= this.#queueLimit) {
      throw new ApiError(
        503,
        'Too many large bodies',
        `meshdesk is already reading ${this.#workers.length} large request bodies with ${this.#queue.length} more waiting; send this one again shortly`,
        [],
        1,
      );
    }
    return new Promise<BodyReaderResult<K>>((resolve, reject) => {
      this.#queue.push({ job: { id: this.#nextId++, reader, text, args }, resolve: resolve as (value: unknown) => void, reject });
      this.#dispatch();
    });
  }

  /** Ends the workers; bodies still waiting or being read are answered 503. */
  async close(): Promise<void> {
    this.#closed = true;
    const stopping = new ApiError(503, 'Shutting down', 'meshdesk stopped before it had read the request body');
    for (const pending of this.#queue.splice(0)) pending.reject(stopping);
    const workers = this.#workers.splice(0);
    for (const { running } of workers) running?.reject(stopping);
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const idle = this.#workers.find((candidate) => candidate.running === undefined) ?? this.#startWorker();
      if (!idle) return;
      const pending = this.#queue.shift()!;
      idle.running = pending;
      idle.worker.ref();
      idle.worker.postMessage(pending.job);
    }
  }

  /** A new worker while there are fewer than the pool's size; started on demand, so a core without large bodies has none. */
  #startWorker(): PoolWorker | undefined {
    if (this.#workers.length >= this.#size) return undefined;
    // Its own heap bound: a body that makes the parser run out of memory ends the worker (its body answered 500), not meshdesk.
    const options = { eval: this.#entry.eval ?? false, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } };
    const poolWorker: PoolWorker = { worker: new Worker(this.#entry.script, options) };
    const { worker } = poolWorker;
    this.#workers.push(poolWorker);
    worker.on('message', (answer: BodyJobAnswer) => {
      const pending = poolWorker.running;
      if (pending === undefined || pending.job.id !== answer.id) return;
      poolWorker.running = undefined;
      worker.unref();
      if (answer.ok) pending.resolve(rememberValidated(pending.job.reader, answer.value as never));
      else pending.reject(fromCrossingError(answer.error));
      this.#dispatch();
    });
    // A worker that fails or ends (out of memory, a crash) fails its body alone; the next body gets a new worker.
    const lost = (error: Error) => {
      const index = this.#workers.indexOf(poolWorker);
      if (index === -1) return;
      this.#workers.splice(index, 1);
      poolWorker.running?.reject(error);
      poolWorker.running = undefined;
      if (!this.#closed) this.#dispatch();
    };
    worker.on('error', (error) => lost(new Error(`the body worker failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => lost(new Error(`the body worker exited (code ${code}) while reading a request body`)));
    worker.unref();
    return poolWorker;
  }
}

/**
 * The worker's entry, wherever this code runs: the TypeScript source beside this file (tsx, vitest),
 * the bundle of `body-worker.ts` beside a single-file bundle (esbuild's, in tests), or beside
 * electron-vite's entries when this file is in one of its chunks (`out/main/chunks/` → `out/main/body-worker.js`).
 */
function workerEntry(): { script: string | URL; eval?: true } {
  const source = new URL('./body-worker.ts', import.meta.url);
  if (import.meta.url.endsWith('.ts') && existsSync(source)) {
    // Node 20 does not apply a loader given with `--import` to a worker's own entry: tsx imports it instead.
    const tsx = import.meta.resolve('tsx/esm/api');
    return { script: `import(${JSON.stringify(tsx)}).then(({ tsImport }) => tsImport(${JSON.stringify(source.href)}, ${JSON.stringify(tsx)}))`, eval: true };
  }
  const built = [new URL('./body-worker.js', import.meta.url), new URL('../body-worker.js', import.meta.url)];
  const script = built.find((candidate) => existsSync(candidate));
  if (!script) throw new Error(`the body worker's entry is missing: looked for ${built.map((candidate) => fileURLToPath(candidate)).join(' and ')}`);
  return { script };
}
