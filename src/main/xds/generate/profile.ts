import type { MeshContext } from '../context/mesh-context.js';
import { CompositeGenerator, type ResourceGenerator } from './generator.js';
import { inboundProxyGenerator } from './inbound-proxy-generator.js';
import { outboundProxyGenerator } from './outbound-proxy-generator.js';
import type { Proxy, ProxyKind } from './proxy.js';
import { proxylessGrpcGenerator } from './proxyless-grpc-generator.js';
import { secretsGenerator } from './secrets-generator.js';
import type { GeneratedResources } from './resources.js';

/** What each kind of proxy gets, in generation order (Kuma's default proxy profile). */
export const PROFILES: { readonly [K in ProxyKind]: readonly ResourceGenerator[] } = {
  envoy: [inboundProxyGenerator, outboundProxyGenerator, secretsGenerator],
  grpc: [proxylessGrpcGenerator],
};

const GENERATORS: { readonly [K in ProxyKind]: ResourceGenerator } = {
  envoy: new CompositeGenerator('envoy-profile', PROFILES.envoy),
  grpc: new CompositeGenerator('grpc-profile', PROFILES.grpc),
};

/** The whole configuration of one proxy, by its kind's profile. */
export function generateProxyResources(context: MeshContext, proxy: Proxy): GeneratedResources {
  return GENERATORS[proxy.kind].generate(context, proxy);
}
