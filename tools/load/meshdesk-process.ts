import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A headless meshdesk started for a measurement, on a fresh data directory and free ports. */
export interface MeshdeskProcess {
  apiUrl: string;
  /** `127.0.0.1:<port>` of its ADS server. */
  ads: string;
  pid: number;
  /** SIGTERM (a clean shutdown, which also writes a --cpu-prof profile), then removes the data directory. */
  stop(): Promise<void>;
}

/**
 * Starts `src/main/headless.ts` under plain `node --import tsx`, so that the child's pid is the
 * control plane itself and `nodeArgs` (e.g. `--cpu-prof`) apply to it.
 */
export async function startMeshdesk(nodeArgs: string[] = []): Promise<MeshdeskProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meshdesk-load-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', 'src/main/headless.ts', '--data-dir', dataDir, '--api-port', '0', '--ads-port', '0'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const { apiUrl, ads } = await new Promise<{ apiUrl: string; ads: string }>((resolve, reject) => {
    const onData = () => {
      const api = /API listening on (http:\/\/\S+)/.exec(output);
      const xds = /ADS \(xDS\) listening on (\S+)/.exec(output);
      if (api && xds) resolve({ apiUrl: api[1]!, ads: xds[1]! });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`meshdesk exited with ${code} before listening:\n${output}`)));
  });
  return {
    apiUrl,
    ads,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
