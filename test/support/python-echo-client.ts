import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLIENT_SCRIPT = fileURLToPath(new URL('../e2e/python/echo_client.py', import.meta.url));

export type CallResult = { ok: true; reply: string } | { ok: false; code: string; details: string };

export interface PythonEchoClient {
  ready(): Promise<CallResult | { ready: true }>;
  /** One call; `metadata` is sent as the call's metadata (routes may match on it). */
  call(text: string, metadata?: Record<string, string>): Promise<CallResult>;
  stop(): void;
}

/** Debian's python3-grpcio (gRPC C-core's xDS client) as a subprocess: one line in, one JSON result out. */
export function startPythonEchoClient(target: string, bootstrapFile: string): PythonEchoClient {
  const child = spawn('/usr/bin/python3', [CLIENT_SCRIPT, target], {
    env: { ...process.env, GRPC_XDS_BOOTSTRAP: bootstrapFile },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const readResult = async (): Promise<CallResult> => {
    const line = await lines.next();
    if (line.done) throw new Error(`the python client exited:\n${stderr}`);
    return JSON.parse(line.value) as CallResult;
  };
  return {
    ready: readResult,
    call: async (text, metadata) => {
      child.stdin.write(`${metadata ? JSON.stringify({ text, metadata }) : text}\n`);
      return readResult();
    },
    stop: () => child.kill(),
  };
}
