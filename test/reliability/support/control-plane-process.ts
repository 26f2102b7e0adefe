import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The real headless control plane (`src/main/headless.ts`, see `headlessBundle`) as a child process
 * on a data directory. Unlike test/support/headless-process.ts it reports the ADS port too and can
 * be killed at any moment, including before it listens, which is what the crash harness needs.
 */
export class ControlPlaneProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once both listeners are up; rejects if the process exits first. */
  readonly ready: Promise<{ apiUrl: string; adsPort: number }>;
  #output = '';

  /** `bundle` from `headlessBundle()`. */
  constructor(bundle: string, dataDir: string) {
    this.child = spawn(process.execPath, [bundle, '--data-dir', dataDir, '--api-port', '0', '--ads-port', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // A failed or timed-out test must not leave a control plane running.
    onTestFinished(() => {
      this.child.kill('SIGKILL');
    });
    this.exited = once(this.child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
    this.child.stdout!.on('data', (chunk) => (this.#output += chunk));
    this.child.stderr!.on('data', (chunk) => (this.#output += chunk));
    this.ready = new Promise((resolve, reject) => {
      const onData = () => {
        const api = /API listening on (http:\/\/\S+)/.exec(this.#output);
        const ads = /ADS \(xDS\) listening on \S+:(\d+)/.exec(this.#output);
        if (api && ads) resolve({ apiUrl: api[1]!, adsPort: Number(ads[1]) });
      };
      this.child.stdout!.on('data', onData);
      void this.exited.then(({ code, signal }) => reject(new Error(`control plane exited (${signal ?? code}) before listening:\n${this.#output}`)));
    });
    this.ready.catch(() => {}); // a kill during startup is expected; callers that care await `ready`
  }

  output(): string {
    return this.#output;
  }

  /** SIGKILL: no handler runs, no close, no checkpoint. Resolves once the process is gone. */
  async crash(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** A graceful stop; resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    this.child.kill(signal);
    return (await this.exited).code;
  }
}
