import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { bundledEntry } from './bundled-entry.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run meshdesk -- <args>`: the CLI's entry point (`src/main/cli.ts`, see `bundledEntry`) as a real child process. */
export async function runMeshdesk(args: string[]): Promise<CliRun> {
  return runProcess(process.execPath, [await bundledEntry('src/main/cli.ts'), ...args]);
}

/** Runs a command in the project's folder to its end, with what it printed. */
export async function runProcess(command: string, args: string[]): Promise<CliRun> {
  const child = spawn(command, args, { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}
