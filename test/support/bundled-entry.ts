import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * Inside this checkout, so that bundles resolve packages (and proto files) from its node_modules;
 * one folder per test process: test files run in parallel and must not overwrite each other's bundle.
 */
const ALL_BUNDLES = join(ROOT, 'out', 'test-bundles');
const BUNDLES = join(ALL_BUNDLES, String(process.pid));

const STORAGE_WORKER = 'src/main/store/worker/storage-worker.ts';
const BODY_WORKER = 'src/main/api/body-reading/body-worker.ts';

const bundles = new Map<string, Promise<string>>();
let bodyWorker: Promise<unknown> | undefined;

/**
 * A TypeScript entry point (relative to the project) bundled as it is, packages left external,
 * built once per test process and run with `node`: tests start the CLI and the control plane as
 * real processes many times, and transpiling the sources on every start (tsx) costs about two
 * seconds of CPU each, seconds more on a busy machine.
 */
export function bundledEntry(entry: string): Promise<string> {
  let bundle = bundles.get(entry);
  if (!bundle) {
    if (bundles.size === 0) {
      removeBundlesOfEndedProcesses();
      mkdirSync(BUNDLES, { recursive: true });
    }
    const outfile = join(BUNDLES, `${basename(entry, '.ts')}.mjs`);
    const options = { bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' } as const;
    // The worker threads beside the bundle, where the bundled StorageClient and body reader pool look for them, as in electron-vite's build.
    bodyWorker ??= build({ ...options, entryPoints: [join(ROOT, BODY_WORKER)], outfile: join(BUNDLES, 'body-worker.js') });
    const entryAndStorageWorker = build({
      ...options,
      entryPoints: { [basename(entry, '.ts')]: join(ROOT, entry), 'storage-worker': join(ROOT, STORAGE_WORKER) },
      outdir: BUNDLES,
      outExtension: { '.js': '.mjs' },
    });
    bundle = Promise.all([entryAndStorageWorker, bodyWorker]).then(() => outfile);
    bundles.set(entry, bundle);
  }
  return bundle;
}

/** Vitest ends its test processes without an exit event to clean up on: the next one that bundles does it. */
function removeBundlesOfEndedProcesses(): void {
  let folders: string[];
  try {
    folders = readdirSync(ALL_BUNDLES);
  } catch {
    return;
  }
  for (const folder of folders) if (!isRunning(Number(folder))) rmSync(join(ALL_BUNDLES, folder), { recursive: true, force: true });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists and belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
