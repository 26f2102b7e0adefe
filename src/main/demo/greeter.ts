// The demo's proxyless gRPC pair: real gRPC servers, and gRPC's own Node xDS client calling them
// through meshdesk (`xds:///greeter`), as an application would.
import * as grpc from '@grpc/grpc-js';
import { textUnaryMethod } from './text-method.js';

const GREETER_DEFINITION = {
  SayHello: textUnaryMethod('/meshdesk.demo.Greeter/SayHello'),
} satisfies grpc.ServiceDefinition;

export interface GreeterServer {
  port: number;
  stop(): Promise<void>;
}

/** A gRPC server on 127.0.0.1 (any free port) answering with its version, so the caller can count the split. */
export async function startGreeterServer(version: string): Promise<GreeterServer> {
  const server = new grpc.Server();
  server.addService(GREETER_DEFINITION, {
    SayHello: (_call: grpc.ServerUnaryCall<string, string>, callback: grpc.sendUnaryData<string>) => callback(null, version),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { port, stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

/** What the client's calls got so far: answers per version, and failures with the latest one's status. */
export interface GreeterCalls {
  ok: number;
  byVersion: Record<string, number>;
  failed: number;
  lastError?: string;
}

export interface GreeterClient {
  calls(): GreeterCalls;
  close(): void;
}

/**
 * gRPC's own xDS client (grpc-js-xds) calling `xds:///<service>` every `intervalMs`, one call at a
 * time, with the bootstrap given (its node metadata registers the client's Dataplane). The bootstrap
 * goes in grpc-js-xds's per-channel option: a GRPC_XDS_BOOTSTRAP variable would apply to the whole
 * process, which here is the control plane's.
 */
export async function startGreeterClient(service: string, bootstrap: object, intervalMs: number): Promise<GreeterClient> {
  // Loaded with the demo only. grpc-js-xds compiles its xxhash WebAssembly lazily, inside a
  // resolver's first update, where a channel closed meanwhile fails unhandled: load it up front.
  const [xds, { loadXxhashApi }] = await Promise.all([import('@grpc/grpc-js-xds'), import('@grpc/grpc-js-xds/build/src/xxhash.js')]);
  xds.register();
  await loadXxhashApi();
  const Client = grpc.makeGenericClientConstructor(GREETER_DEFINITION, 'Greeter');
  const client = new Client(`xds:///${service}`, grpc.credentials.createInsecure(), {
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
  }) as unknown as grpc.Client & {
    SayHello(text: string, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, reply?: string) => void): void;
  };
  const calls: GreeterCalls = { ok: 0, byVersion: {}, failed: 0 };
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const callOnce = () => {
    client.SayHello('hello', new grpc.Metadata(), { deadline: Date.now() + 5000 }, (error, version) => {
      if (error) {
        calls.failed += 1;
        calls.lastError = `${grpc.status[error.code] ?? error.code}: ${error.details}`;
      } else {
        calls.ok += 1;
        calls.byVersion[version!] = (calls.byVersion[version!] ?? 0) + 1;
      }
      if (!closed) timer = setTimeout(callOnce, intervalMs);
    });
  };
  callOnce();
  return {
    calls: () => structuredClone(calls),
    close: () => {
      closed = true;
      clearTimeout(timer);
      client.close();
    },
  };
}
