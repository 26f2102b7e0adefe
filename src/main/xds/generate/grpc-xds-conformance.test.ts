// What the proxyless generator produces must pass the validation of a real gRPC xDS client:
// each resource is encoded as on the wire, then decoded and validated by grpc-js-xds's own
// resource types, exactly as its XdsClient does with a DiscoveryResponse.
import fs from 'node:fs';
import { register } from '@grpc/grpc-js-xds';
import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import type { Any__Output } from '@grpc/grpc-js-xds/build/src/generated/google/protobuf/Any.js';
import { ClusterResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type.js';
import { EndpointResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/endpoint-resource-type.js';
import { ListenerResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/listener-resource-type.js';
import { RouteConfigurationResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/route-config-resource-type.js';
import type { XdsDecodeContext, XdsResourceType } from '@grpc/grpc-js-xds/build/src/xds-resource-type/xds-resource-type.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { encodeResource } from '../protocol/encode.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL, SECRET_TYPE_URL, XDS_TYPE_URLS, type XdsTypeUrl } from '../protocol/type-urls.js';
import { grpcCertificateFiles } from '../../mtls/grpc-certificate-files.js';
import { generateGrpcBootstrap } from './bootstrap.js';
import { goldenCases } from './golden-files.js';
import type { GeneratedResources } from './resources.js';

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
      certificates: { mesh: 'default', files: grpcCertificateFiles('/data', 'default', 'client-1') },
    }),
  );
  return { server: bootstrap.xdsServers[0]!, bootstrap };
}

describe('proxyless gRPC configuration against grpc-js-xds', () => {
  // Registers the router filter and LB policies, as a client does before dialing `xds:///…`.
  beforeAll(() => register());

  for (const { name, goldenPath } of goldenCases('proxyless-grpc')) {
    it(`grpc-js-xds accepts every resource of proxyless-grpc/${name}`, () => {
      const generated = parse(fs.readFileSync(goldenPath, 'utf8')) as GeneratedResources;
      expect(generated[SECRET_TYPE_URL]).toEqual([]);
      for (const typeUrl of XDS_TYPE_URLS.filter((type): type is keyof typeof RESOURCE_TYPES => type !== SECRET_TYPE_URL)) {
        for (const { name: resourceName, resource } of generated[typeUrl]) {
          const any = encodeResource(typeUrl, resource);

          const result = RESOURCE_TYPES[typeUrl].decode(decodeContext(), {
            type_url: any.type_url,
            value: Buffer.from(any.value),
          } as Any__Output);

          expect(result, `${typeUrl} "${resourceName}"`).toMatchObject({ name: resourceName });
          expect(result.error, `${typeUrl} "${resourceName}"`).toBeUndefined();
        }
      }
    });
  }
});
