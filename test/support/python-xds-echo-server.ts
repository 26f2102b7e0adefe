import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-dir.js';
import type { XdsEchoServer } from './xds-echo-server.js';

const SERVER_SCRIPT = fileURLToPath(new URL('../e2e/python/echo_server.py', import.meta.url));

/**
 * gRPC C-core's xDS-enabled server (Debian's python3-grpcio, gRFC A36) on 127.0.0.1:`port`, as a
 * subprocess: like startXdsEchoServer, it serves once meshdesk sent its listener and takes TLS and
 * permissions from it, answering `<name>: <text> from <the caller's URI SANs>`.
 * `stderr()` is what it logged, for a failing test's message.
 */
export async function startPythonXdsEchoServer(name: string, port: number, bootstrap: object): Promise<XdsEchoServer & { stderr(): string }> {
  const bootstrapFile = join(tempDir(), 'bootstrap.json');
  writeFileSync(bootstrapFile, JSON.stringify(bootstrap));
  const child = spawn('/usr/bin/python3', [SERVER_SCRIPT, name, String(port)], {
    env: { ...process.env, GRPC_XDS_BOOTSTRAP: bootstrapFile },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const started = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  if (started.done) throw new Error(`the python xDS server exited:\n${stderr}`);
  return {
    port,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
