import { applyPolicyPlugins, type GeneratedProxy } from '../../policies/core/apply-plugins.js';
import type { PolicyPlugin } from '../../policies/core/plugin.js';
import { POLICY_PLUGINS } from '../../policies/registry.js';
import type { MeshContext } from '../context/mesh-context.js';
import { XDS_TYPE_URLS, type XdsTypeUrl } from '../protocol/type-urls.js';
import { canonical } from '../context/carried-memo.js';
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

/**
 * One proxy's connectivity by its kind's profile, before any policy: what the policy plugins start
 * from. Each resource is the very object the mesh's previous context gave for the same content
 * (see `canonical`), so that after a change only what changed is edited and encoded again.
 */
export function generateProxyResources(context: MeshContext, proxy: Proxy): GeneratedResources {
  const generated = GENERATORS[proxy.kind].generate(context, proxy);
  const canonicalOf = (typeUrl: XdsTypeUrl) =>
    generated[typeUrl].map((named) => {
      const resource = canonical(context, typeUrl, named.resource);
      return resource === named.resource ? named : { name: named.name, resource };
    });
  return Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, canonicalOf(typeUrl)])) as unknown as GeneratedResources;
}

/**
 * The whole configuration of one proxy: its profile's resources, then every policy plugin in
 * Kuma's order (Kuma's policy plugins run after the profile's generators), with the fields each
 * policy set and those the proxy could not apply. `plugins` is the registry's list unless a test
 * brings its own.
 */
export function generateProxy(context: MeshContext, proxy: Proxy, plugins: readonly PolicyPlugin[] = POLICY_PLUGINS): GeneratedProxy {
  return applyPolicyPlugins(plugins, context, proxy, generateProxyResources(context, proxy));
}
