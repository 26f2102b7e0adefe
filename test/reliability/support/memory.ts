import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection, even when the test process was not started with --expose-gc: the
 * flag is set at run time and `gc` taken from a fresh context, where V8 installs it.
 */
function exposedGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const gc = exposedGc();

export interface MemorySample {
  rssBytes: number;
  heapUsedBytes: number;
  /** Memory of Buffers and other ArrayBuffers, outside the JavaScript heap (encoded messages live here). */
  externalBytes: number;
  /** Live timers, sockets and other handles by kind, from process.getActiveResourcesInfo(). */
  resources: Record<string, number>;
}

/** Memory after settling: several full collections with turns of the event loop between them (finalizers, freed sockets). */
export async function settledMemory(): Promise<MemorySample> {
  for (let round = 0; round < 4; round++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const resources: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rssBytes: rss, heapUsedBytes: heapUsed, externalBytes: external, resources };
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
