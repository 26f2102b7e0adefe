import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLIENT_SCRIPT = fileURLToPath(new URL('../e2e/python/echo_client.py', import.meta.url));

export type CallResult = { ok: true; reply: string } | { ok: false; code: string; details: string };

export type TimedCallResult = CallResult & { ms: number };

export interface BatchRequest {
  count: number;
  text?: string;
  target?: string;
  metadata?: Record<string, string>;
  /** The deadline of each call, in seconds. */
  timeout?: number;
}

export interface PythonEchoClient {
  ready(): Promise<CallResult | { ready: true }>;
  /** One call; `metadata` is sent as the call's metadata (routes may match on it). */
  call(text: string, metadata?: Record<string, string>): Promise<CallResult>;
  /** `count` concurrent calls (to `target` when given), each result with its latency, in one round trip through the pipe. */
  batch(request: BatchRequest): Promise<TimedCallResult[]>;
  stop(): void;
}

/**
 * Debian's python3-grpcio (gRPC C-core's xDS client) as a subprocess: one line in, one JSON result out.
 * `connectTo` are more targets whose channels connect at once, as the first's does; with
 * `xdsCredentials` the channels take their TLS from xDS (mesh mTLS, gRFC A29).
 */
export function startPythonEchoClient(target: string, bootstrapFile: string, connectTo: readonly string[] = [], { xdsCredentials = false } = {}): PythonEchoClient {
  const child = spawn('/usr/bin/python3', [CLIENT_SCRIPT, target, ...connectTo, ...(xdsCredentials ? ['--xds-credentials'] : [])], {
    // Between calls nothing in Python's gRPC polls the xDS stream but C-core's backup poller, every
    // 5 s by default: updates would sit unread (and unACKed) that long. 50 ms keeps it close to a server's pace.
    env: { ...process.env, GRPC_XDS_BOOTSTRAP: bootstrapFile, GRPC_CLIENT_CHANNEL_BACKUP_POLL_INTERVAL_MS: '50' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const readLine = async <T>(): Promise<T> => {
    const line = await lines.next();
    if (line.done) throw new Error(`the python client exited:\n${stderr}`);
    return JSON.parse(line.value) as T;
  };
  const readResult = () => readLine<CallResult>();
  return {
    ready: readResult,
    call: async (text, metadata) => {
      child.stdin.write(`${metadata ? JSON.stringify({ text, metadata }) : text}\n`);
      return readResult();
    },
    batch: async (request) => {
      child.stdin.write(`${JSON.stringify({ text: 'hi', ...request })}\n`);
      return (await readLine<{ batch: TimedCallResult[] }>()).batch;
    },
    stop: () => child.kill(),
  };
}
