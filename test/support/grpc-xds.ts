import { register } from '@grpc/grpc-js-xds';
import type { Any__Output } from '@grpc/grpc-js-xds/build/src/generated/google/protobuf/Any.js';
import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import { ClusterResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type.js';
import { EndpointResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/endpoint-resource-type.js';
import { ListenerResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/listener-resource-type.js';
import { RouteConfigurationResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/route-config-resource-type.js';
import type { XdsDecodeContext, XdsResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/xds-resource-type.js';
import { loadXxhashApi } from '@grpc/grpc-js-xds/build/src/xxhash.js';
import { generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import { encodeResource } from '../../src/main/xds/protocol/encode.js';
import type { ProtoJson } from '../../src/main/xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL, type XdsTypeUrl } from '../../src/main/xds/protocol/type-urls.js';

/**
 * Registers gRPC's own Node xDS client (the `xds:` resolver) for in-process test clients.
 *
 * grpc-js-xds 1.14 compiles its xxhash WebAssembly lazily, inside the resolver's first config
 * update; a channel closed during that await leaves the resolver reading its destroyed dependency
 * manager (an unhandled "Cannot read properties of null (reading 'addClusterSubscription')").
 * Tests close clients as soon as they have what they checked, so the hash API is loaded up front.
 */
export async function registerGrpcXds(): Promise<void> {
  register();
  await loadXxhashApi();
}

const RESOURCE_TYPES: { readonly [T in XdsTypeUrl]: XdsResourceType } = {
  [CLUSTER_TYPE_URL]: ClusterResourceType.get(),
  [ENDPOINT_TYPE_URL]: EndpointResourceType.get(),
  [LISTENER_TYPE_URL]: ListenerResourceType.get(),
  [ROUTE_TYPE_URL]: RouteConfigurationResourceType.get(),
};

function decodeContext(): XdsDecodeContext {
  const bootstrap = validateBootstrapConfig(
    generateGrpcBootstrap({ nodeId: 'default.client-1', adsHost: '127.0.0.1', adsPort: 5678, locality: {} }),
  );
  return { server: bootstrap.xdsServers[0]!, bootstrap };
}

/**
 * A resource as grpc-js-xds's XdsClient reads it from a DiscoveryResponse: encoded as on the wire,
 * then decoded and validated by its own resource type. `error` says why the client would NACK it.
 * Call `register()` (or registerGrpcXds) first: it registers the router filter and LB policies.
 */
export function grpcJsXdsDecode(typeUrl: XdsTypeUrl, resource: ProtoJson): { name?: string; error?: string } {
  const any = encodeResource(typeUrl, resource);
  const result = RESOURCE_TYPES[typeUrl].decode(decodeContext(), { type_url: any.type_url, value: Buffer.from(any.value) } as Any__Output);
  return { name: result.name, ...(result.error !== undefined && { error: String(result.error) }) };
}
