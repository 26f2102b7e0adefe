import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLIENT_SCRIPT = fileURLToPath(new URL('../e2e/python/echo_client.py', import.meta.url));

export type CallResult = { ok: true; reply: string } | { ok: false; code: string; details: string };

/** Debian's python3-grpcio (gRPC C-core's xDS client) as a subprocess: one line in, one JSON result out. */
export function startPythonClient(target: string, bootstrapFile: string) {
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
    call: async (text: string): Promise<CallResult> => {
      child.stdin.write(`${text}\n`);
      return readResult();
    },
    stop: () => child.kill(),
  };
}
