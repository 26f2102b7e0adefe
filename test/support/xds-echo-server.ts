import * as grpc from '@grpc/grpc-js';
import { XdsServer, XdsServerCredentials } from '@grpc/grpc-js-xds';
import { createServer } from 'node:net';
import { ECHO_SERVICE } from './echo-server.js';
import { registerGrpcXds } from './grpc-xds.js';

export interface XdsEchoServer {
  port: number;
  stop(): Promise<void>;
}

/** A loopback port free now, for servers that must be told their port before they bind (an xDS server's listener names it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A real xDS-enabled gRPC server (grpc-js-xds `XdsServer`, gRFC A36) on 127.0.0.1:`port`: it serves
 * only once meshdesk sent the listener of that address, and takes its TLS from it (XdsServerCredentials,
 * plaintext when the listener has none). It answers `<name>: <text> from <the caller's URI SANs>`,
 * `from -` for a plaintext caller.
 */
export async function startXdsEchoServer(name: string, port: number, bootstrap: object): Promise<XdsEchoServer> {
  // register() also registers the HTTP filters (router, RBAC) the server's listener names.
  await registerGrpcXds();
  const server = new XdsServer({ 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) } as grpc.ServerOptions);
  server.addService(ECHO_SERVICE, {
    Echo: (call: grpc.ServerUnaryCall<string, string>, callback: grpc.sendUnaryData<string>) => {
      const sans = call.getAuthContext().sslPeerCertificate?.subjectaltname ?? '-';
      callback(null, `${name}: ${call.request} from ${sans}`);
    },
  });
  await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, new XdsServerCredentials(grpc.ServerCredentials.createInsecure()), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { port, stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}
