import type { DataplaneResource, DataplaneSpec } from '../../../src/shared/resources.js';
import { grpcCertificateFiles } from '../../../src/main/mtls/grpc-certificate-files.js';
import { generateGrpcBootstrap } from '../../../src/main/xds/generate/bootstrap.js';
import { echoClient, type EchoClient } from '../../support/echo-server.js';
import { registerGrpcXds } from '../../support/grpc-xds.js';

// gRPC's own Node xDS client, in process, resolves xds:/// targets through meshdesk's ADS server.
await registerGrpcXds();

export interface GrpcProxyOptions {
  adsPort: number;
  mesh?: string;
  name: string;
  /** The service it calls (`xds:///<service>`). */
  target: string;
  /** When given, the proxy registers this Dataplane through its metadata (origin "proxy"). */
  register?: DataplaneSpec;
  /** The core's data directory: the bootstrap then names the certificate files meshdesk writes for mesh mTLS. */
  dataDir?: string;
  /** The Dataplane's token, which every bootstrap meshdesk gives carries (required in meshes with mTLS). */
  token?: string;
}

export interface GrpcProxy {
  client: EchoClient;
  close(): void;
}

/**
 * The Dataplane of a proxy serving `service` over gRPC on `port` and calling `target` through
 * outbound port 10001: what the UI tests' proxies register. Two Dataplanes of one mesh may not
 * share an inbound port: give each of a test its own.
 */
export function callerSpec(service: string, port = 19001, target = 'echo'): DataplaneSpec {
  return {
    networking: {
      address: '127.0.0.1',
      inbound: [{ port, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'grpc' } }],
      outbound: [{ port: 10001, tags: { 'kuma.io/service': target } }],
    },
  };
}

/**
 * A real proxyless gRPC client connected to meshdesk as `mesh.name`. Its channel opens the ADS
 * stream on the first call; the call itself may fail (no backend), the stream stays.
 */
export function connectGrpcProxy({ adsPort, mesh = 'default', name, target, register: spec, dataDir, token }: GrpcProxyOptions): GrpcProxy {
  const bootstrap = generateGrpcBootstrap({
    nodeId: `${mesh}.${name}`,
    adsHost: '127.0.0.1',
    adsPort,
    locality: { region: 'local', zone: 'laptop' },
    ...(spec && { dataplane: dataplaneResource(mesh, name, spec) }),
    ...(dataDir && { certificates: { mesh, files: grpcCertificateFiles(dataDir, mesh, name) } }),
    token,
  });
  const client = echoClient(`xds:///${target}`, {
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
  });
  client.echo('hello', 3000).catch(() => undefined);
  return { client, close: () => client.close() };
}

function dataplaneResource(mesh: string, name: string, spec: DataplaneSpec): DataplaneResource {
  const now = new Date().toISOString();
  return { type: 'Dataplane', meta: { mesh, name, version: 0, creationTime: now, modificationTime: now, labels: {} }, spec };
}
