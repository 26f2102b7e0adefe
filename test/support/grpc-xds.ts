import { register } from '@grpc/grpc-js-xds';
import type { Any__Output } from '@grpc/grpc-js-xds/build/src/generated/google/protobuf/Any.js';
import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import { ClusterResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type.js';
import { EndpointResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/endpoint-resource-type.js';
import { ListenerResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/listener-resource-type.js';
import { RouteConfigurationResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/route-config-resource-type.js';
import type { XdsDecodeContext, XdsResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/xds-resource-type.js';
import { loadXxhashApi } from '@grpc/grpc-js-xds/build/src/xxhash.js';
import { grpcCertificateFiles } from '../../src/main/mtls/grpc-certificate-files.js';
import { generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import { encodeResource } from '../../src/main/xds/protocol/encode.js';
import type { ProtoJson } from '../../src/main/xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL, SECRET_TYPE_URL, type XdsTypeUrl } from '../../src/main/xds/protocol/type-urls.js';

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

/** gRPC has no SDS: it reads certificates from files its bootstrap names (gRFC A29). */
const RESOURCE_TYPES: { readonly [T in Exclude<XdsTypeUrl, typeof SECRET_TYPE_URL>]: XdsResourceType } = {
  [CLUSTER_TYPE_URL]: ClusterResourceType.get(),
  [ENDPOINT_TYPE_URL]: EndpointResourceType.get(),
  [LISTENER_TYPE_URL]: ListenerResourceType.get(),
  [ROUTE_TYPE_URL]: RouteConfigurationResourceType.get(),
};

function decodeContext(): XdsDecodeContext {
  const bootstrap = validateBootstrapConfig(
    generateGrpcBootstrap({
      nodeId: 'default.client-1',
      adsHost: '127.0.0.1',
      adsPort: 5678,
      locality: {},
      // The certificate providers mesh mTLS clusters and server listeners name.
      certificates: { mesh: 'default', files: grpcCertificateFiles('/data', 'default', 'client-1') },
    }),
  );
  return { server: bootstrap.xdsServers[0]!, bootstrap };
}

/**
 * A resource as grpc-js-xds's XdsClient reads it from a DiscoveryResponse: encoded as on the wire,
 * then decoded and validated by its own resource type. `error` says why the client would NACK it.
 * Call `register()` (or registerGrpcXds) first: it registers the router filter and LB policies.
 */
export function grpcJsXdsDecode(typeUrl: XdsTypeUrl, resource: ProtoJson): { name?: string; error?: string } {
  if (typeUrl === SECRET_TYPE_URL) throw new Error('gRPC has no SDS: a Secret never reaches a gRPC xDS client');
  const any = encodeResource(typeUrl, resource);
  const result = RESOURCE_TYPES[typeUrl].decode(decodeContext(), { type_url: any.type_url, value: Buffer.from(any.value) } as Any__Output);
  return { name: result.name, ...(result.error !== undefined && { error: String(result.error) }) };
}
