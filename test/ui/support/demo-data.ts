import type { Core } from '../../../src/main/core.js';
import { applyDataplane, backendDataplane } from '../../support/dataplanes.js';
import { startEchoServer, type EchoServer } from '../../support/echo-server.js';
import { putResource } from '../../support/put-resource.js';
import { callerSpec, connectGrpcProxy, type GrpcProxy } from './grpc-proxy.js';

export interface DemoData {
  close(): Promise<void>;
}

/**
 * A small but lively mesh for screenshots and UI tests: two meshes, backends created through the
 * API and served by real gRPC echo servers, and real grpc-js-xds clients, some registering their
 * own Dataplane through metadata (origin "proxy"), one Dataplane that never connected.
 */
export async function startDemoData(core: Core): Promise<DemoData> {
  const servers: EchoServer[] = [];
  const proxies: GrpcProxy[] = [];
  await putResource(core.api.url, '/meshes/payments', { type: 'Mesh', name: 'payments' });

  for (const [mesh, name, service] of [
    ['default', 'echo-1', 'echo'],
    ['default', 'echo-2', 'echo'],
    ['payments', 'ledger-1', 'ledger'],
  ] as const) {
    const server = await startEchoServer(name);
    servers.push(server);
    await applyDataplane(core, backendDataplane(name, server.port, service, mesh));
  }
  await putResource(core.api.url, '/meshes/default/dataplanes/web-1', {
    type: 'Dataplane',
    mesh: 'default',
    name: 'web-1',
    networking: {
      address: '127.0.0.1',
      inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }],
      outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }],
    },
  });
  await putResource(core.api.url, '/meshes/default/dataplanes/api-client', {
    type: 'Dataplane',
    mesh: 'default',
    name: 'api-client',
    networking: { address: '127.0.0.1', outbound: [{ port: 10002, tags: { 'kuma.io/service': 'echo' } }] },
  });

  const adsPort = core.xds.port;
  const { dataDir } = core;
  // Each with its Dataplane's token, as the bootstraps meshdesk gives: the screenshots turn mTLS on in payments.
  const token = (mesh: string, name: string) => core.xds.dataplaneTokens.tokenFor({ mesh, name });
  proxies.push(connectGrpcProxy({ adsPort, name: 'api-client', target: 'echo', dataDir, token: token('default', 'api-client') }));
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
        token: token(mesh, name),
        register: callerSpec(name.replace(/-\d+$/, ''), 19000 + proxies.length, target),
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
