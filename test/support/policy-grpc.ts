// A proxyless gRPC client proxy for policy plugin tests: its generated resources, a plugin's gRPC
// form applied with hand-built rules, what grpc-js-xds's own resource types make of the result,
// and the result served through the real ADS server to real gRPC xDS clients (grpc-js-xds, python3-grpcio).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Any__Output } from '@grpc/grpc-js-xds/build/src/generated/google/protobuf/Any.js';
import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import { ClusterResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type.js';
import { RouteConfigurationResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/route-config-resource-type.js';
import type { XdsResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/xds-resource-type.js';
import { onTestFinished } from 'vitest';
import type { EnvoyResources } from '../../src/main/policies/core/envoy-resources.js';
import type { PolicyPlugin, UnappliedField } from '../../src/main/policies/core/plugin.js';
import { emptyProxyRules, type ProxyRules } from '../../src/main/policies/core/rules.js';
import { twoVersionMesh } from '../../src/main/policies/core/testing/two-version-mesh.js';
import { generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import type { ProxyUserAgent } from '../../src/main/xds/generate/proxy.js';
import { encodeResource } from '../../src/main/xds/protocol/encode.js';
import type { ProtoJson } from '../../src/main/xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ROUTE_TYPE_URL, XDS_TYPE_URLS } from '../../src/main/xds/protocol/type-urls.js';
import { AdsServer } from '../../src/main/xds/server/ads-server.js';
import { snapshotFromJson } from '../../src/main/xds/server/snapshot.js';
import { SnapshotCache } from '../../src/main/xds/server/snapshot-cache.js';
import { echoClient, type EchoClient } from './echo-server.js';
import { startPythonEchoClient, type CallResult } from './python-echo-client.js';
import { contextView } from '../../src/main/xds/context/context-view.js';
import { tempDir } from './temp-dir.js';

export const GRPC_CLIENT_ID = 'default.client';

/**
 * The proxyless client `default.client` of service `echo` (src/main/policies/core/testing/two-version-mesh.ts),
 * whose two endpoints listen on 127.0.0.1 at `ports` (one port: both on it), after `plugin`'s gRPC
 * form ran with `rules` (only `to` rules unless given); `userAgent` is the client the node names (none unless given).
 */
export function grpcClientWithPolicy<Conf>(
  plugin: PolicyPlugin<Conf>,
  rules: Partial<ProxyRules<Conf>>,
  ports: number | readonly [number, number] = 1,
  userAgent?: ProxyUserAgent,
): { resources: EnvoyResources; unapplied: UnappliedField[] } {
  const [first, second] = typeof ports === 'number' ? [ports, ports] : ports;
  const mesh = twoVersionMesh(first, second, 'grpc');
  const { context, resources } = mesh;
  const proxy = { ...mesh.proxy, userAgent };
  const unapplied: UnappliedField[] = [];
  plugin.applyGrpc({ rulesOf: () => emptyProxyRules(), proxy, context: contextView(context, plugin.contextReads.grpc), rules: { ...emptyProxyRules<Conf>(), ...rules }, resources, unapplied: (field) => unapplied.push(field) });
  return { resources, unapplied };
}

/** What grpc-js-xds makes of one resource: its own decoding and validation, as its XdsClient runs them on a response. */
function grpcUpdate(type: XdsResourceType, typeUrl: string, resources: EnvoyResources, name: string): Record<string, unknown> {
  const any = encodeResource(typeUrl, resources.get(typeUrl as never, name)!);
  const bootstrap = validateBootstrapConfig(generateGrpcBootstrap({ nodeId: GRPC_CLIENT_ID, adsHost: '127.0.0.1', adsPort: 1, locality: {} }));
  const result = type.decode({ server: bootstrap.xdsServers[0]!, bootstrap }, { type_url: any.type_url, value: Buffer.from(any.value) } as Any__Output);
  if (result.error !== undefined) throw new Error(`grpc-js-xds refused ${typeUrl} ${name}: ${result.error}`);
  return result.value as Record<string, unknown>;
}

/** The RouteConfiguration as gRPC reads it (its route actions with `retry_policy`, `max_stream_duration`). */
export function grpcRouteConfig(resources: EnvoyResources, name = 'echo'): { virtual_hosts: { routes: { route: Record<string, unknown> }[] }[] } {
  return grpcUpdate(RouteConfigurationResourceType.get(), ROUTE_TYPE_URL, resources, name) as never;
}

/** The cluster update gRPC builds (`maxConcurrentRequests`, `outlierDetectionUpdate`). */
export function grpcCluster(resources: EnvoyResources, name = 'echo'): Record<string, unknown> {
  return grpcUpdate(ClusterResourceType.get(), CLUSTER_TYPE_URL, resources, name);
}

/** Serves the resources to the node `default.client` through a real ADS server on loopback; the bootstrap of that node. */
async function serveGrpcClient(resources: EnvoyResources): Promise<ProtoJson> {
  const generated = resources.toResources();
  const snapshots = new SnapshotCache();
  snapshots.setSnapshot(
    GRPC_CLIENT_ID,
    snapshotFromJson(Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, { version: 'v1', resources: generated[typeUrl].map(({ resource }) => resource) }]))),
  );
  const ads = new AdsServer({ snapshots });
  const adsPort = await ads.start({ port: 0 });
  onTestFinished(() => ads.stop());
  return generateGrpcBootstrap({ nodeId: GRPC_CLIENT_ID, adsHost: '127.0.0.1', adsPort, locality: {} });
}

/** A real grpc-js-xds client dialing `xds:///echo`, configured with the resources. */
export async function grpcXdsClientOf(resources: EnvoyResources): Promise<EchoClient> {
  const bootstrap = await serveGrpcClient(resources);
  const client = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) });
  onTestFinished(() => client.close());
  return client;
}

/** A real python3-grpcio (gRPC C-core) client dialing `xds:///echo`, configured with the resources; each call has a 5 s deadline. */
export async function pythonXdsClientOf(resources: EnvoyResources): Promise<{ call(text: string): Promise<CallResult> }> {
  const bootstrapFile = join(tempDir(), 'bootstrap.json');
  writeFileSync(bootstrapFile, JSON.stringify(await serveGrpcClient(resources)));
  const client = startPythonEchoClient('xds:///echo', bootstrapFile);
  onTestFinished(() => void client.stop());
  await client.ready();
  return client;
}
