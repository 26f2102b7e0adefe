import * as grpc from '@grpc/grpc-js';
import { textUnaryMethod } from '../../src/main/demo/text-method.js';

/** A one-method service over raw UTF-8, so neither side needs a proto file (the Python client uses the same path). */
export const ECHO_METHOD_PATH = '/meshdesk.test.EchoService/Echo';

export const ECHO_SERVICE = {
  Echo: textUnaryMethod(ECHO_METHOD_PATH),
} satisfies grpc.ServiceDefinition;

const EchoClientConstructor = grpc.makeGenericClientConstructor(ECHO_SERVICE, 'EchoService');

export interface EchoServer {
  port: number;
  stop(): Promise<void>;
}

export type EchoHandler = (call: grpc.ServerUnaryCall<string, string>, callback: grpc.sendUnaryData<string>) => void;

/**
 * A real gRPC server on loopback answering `echo: <text>`, tagged with `name` so calls show which
 * backend answered; `handler` answers instead (a slow or failing server).
 */
export async function startEchoServer(name = 'echo', handler?: EchoHandler): Promise<EchoServer> {
  const server = new grpc.Server();
  server.addService(ECHO_SERVICE, {
    Echo: handler ?? ((call: grpc.ServerUnaryCall<string, string>, callback: grpc.sendUnaryData<string>) => callback(null, `${name}: ${call.request}`)),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { port, stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

export interface EchoClient {
  /** `headers` are sent as the call's metadata (routes may match on them). */
  echo(text: string, deadlineMs?: number, headers?: Record<string, string>): Promise<string>;
  /** Starts connecting (an xds: target starts its xDS stream) without waiting for a call. */
  connect(): void;
  close(): void;
}

/**
 * An echo client on any target; with `xds:///…` and grpc-js-xds registered it resolves through xDS
 * (and with grpc-js-xds's XdsChannelCredentials, takes its TLS from xDS too).
 */
export function echoClient(target: string, options: grpc.ChannelOptions = {}, credentials = grpc.credentials.createInsecure()): EchoClient {
  const client = new EchoClientConstructor(target, credentials, options) as unknown as grpc.Client & {
    Echo(text: string, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, reply?: string) => void): void;
  };
  return {
    echo: (text, deadlineMs = 5000, headers = {}) =>
      new Promise((resolve, reject) =>
        client.Echo(text, metadataOf(headers), { deadline: Date.now() + deadlineMs }, (error, reply) =>
          error ? reject(error) : resolve(reply!),
        ),
      ),
    connect: () => void client.getChannel().getConnectivityState(true),
    close: () => client.close(),
  };
}

function metadataOf(headers: Record<string, string>): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
  return metadata;
}
