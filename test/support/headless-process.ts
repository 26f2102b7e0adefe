import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { bundledEntry } from './bundled-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `src/main/headless.ts`, the entry point `npm run headless` runs, bundled for `node` (see `bundledEntry`). */
export function headlessBundle(): Promise<string> {
  return bundledEntry('src/main/headless.ts');
}

export interface HeadlessProcess {
  child: ChildProcessWithoutNullStreams;
  apiUrl: string;
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs `npm run headless`'s entry point as a real child process and waits until its API listens. */
export async function startHeadless(args: string[], env: NodeJS.ProcessEnv = {}): Promise<HeadlessProcess> {
  const child = spawn(process.execPath, [await headlessBundle(), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const apiUrl = await new Promise<string>((resolve, reject) => {
    // Both lines: they are two writes, which may reach this end in two chunks.
    const onData = () => {
      const match = /API listening on (http:\/\/\S+)/.exec(output);
      if (match && output.includes('ADS (xDS) listening on')) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`headless exited with ${code} before listening:\n${output}`)));
  });
  return {
    child,
    apiUrl,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = await exited;
      return code as number | null;
    },
  };
}

/** Runs the headless entry point expecting it to fail at start; resolves with its exit code and output. */
export async function runHeadlessExpectingFailure(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [await headlessBundle(), ...args], { cwd: ROOT });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  // Started after all: stop it so that the test fails on the exit code instead of hanging.
  child.stdout.on('data', () => {
    if (output.includes('API listening')) child.kill('SIGKILL');
  });
  const [code] = await once(child, 'exit');
  return { code: code as number | null, output };
}
