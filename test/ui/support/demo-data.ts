import type { Core } from '../../../src/main/core.js';
import { startEchoServer, type EchoServer } from '../../support/echo-server.js';
import { connectGrpcProxy, type GrpcProxy } from './grpc-proxy.js';

export interface DemoData {
  close(): Promise<void>;
}

async function put(core: Core, path: string, body: object): Promise<void> {
  const response = await fetch(`${core.api.url}${path}`, { method: 'PUT', body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`PUT ${path} answered ${response.status}: ${await response.text()}`);
}

function backend(mesh: string, name: string, port: number, service: string) {
  return {
    type: 'Dataplane',
    mesh,
    name,
    networking: { address: '127.0.0.1', inbound: [{ port, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'grpc' } }] },
  };
}

/**
 * A small but lively mesh for screenshots and UI tests: two meshes, backends created through the
 * API and served by real gRPC echo servers, and real grpc-js-xds clients, some registering their
 * own Dataplane through metadata (origin "proxy"), one Dataplane that never connected.
 */
export async function startDemoData(core: Core): Promise<DemoData> {
  const servers: EchoServer[] = [];
  const proxies: GrpcProxy[] = [];
  await put(core, '/meshes/payments', { type: 'Mesh', name: 'payments' });

  for (const [mesh, name, service] of [
    ['default', 'echo-1', 'echo'],
    ['default', 'echo-2', 'echo'],
    ['payments', 'ledger-1', 'ledger'],
  ] as const) {
    const server = await startEchoServer(name);
    servers.push(server);
    await put(core, `/meshes/${mesh}/dataplanes/${name}`, backend(mesh, name, server.port, service));
  }
  await put(core, '/meshes/default/dataplanes/web-1', {
    type: 'Dataplane',
    mesh: 'default',
    name: 'web-1',
    networking: {
      address: '127.0.0.1',
      inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }],
      outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }],
    },
  });
  await put(core, '/meshes/default/dataplanes/api-client', {
    type: 'Dataplane',
    mesh: 'default',
    name: 'api-client',
    networking: { address: '127.0.0.1', outbound: [{ port: 10002, tags: { 'kuma.io/service': 'echo' } }] },
  });

  const adsPort = core.xds.port;
  const { dataDir } = core;
  proxies.push(connectGrpcProxy({ adsPort, name: 'api-client', target: 'echo', dataDir }));
  for (const [mesh, name, target] of [
    ['default', 'frontend-1', 'echo'],
    ['default', 'frontend-2', 'echo'],
    ['payments', 'checkout-1', 'ledger'],
  ] as const) {
    proxies.push(
      connectGrpcProxy({
        adsPort,
        mesh,
        name,
        target,
        dataDir,
        register: {
          networking: {
            address: '127.0.0.1',
            inbound: [{ port: 19000 + proxies.length, tags: { 'kuma.io/service': name.replace(/-\d+$/, ''), 'kuma.io/protocol': 'grpc' } }],
            outbound: [{ port: 10001, tags: { 'kuma.io/service': target } }],
          },
        },
      }),
    );
  }
  return {
    close: async () => {
      for (const proxy of proxies) proxy.close();
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}
