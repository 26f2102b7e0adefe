import { applyPolicyPlugins, type GeneratedProxy } from '../../policies/core/apply-plugins.js';
import type { PolicyPlugin } from '../../policies/core/plugin.js';
import { POLICY_PLUGINS } from '../../policies/registry.js';
import type { MeshContext } from '../context/mesh-context.js';
import type { XdsTypeUrl } from '../protocol/type-urls.js';
import { canonical } from '../context/carried-memo.js';
import { CompositeGenerator, type ResourceGenerator } from './generator.js';
import { inboundProxyGenerator } from './inbound-proxy-generator.js';
import { outboundProxyGenerator } from './outbound-proxy-generator.js';
import type { ProxyKind } from '../../../shared/proxy-kind.js';
import type { Proxy } from './proxy.js';
import { proxylessGrpcGenerator } from './proxyless-grpc-generator.js';
import { secretsGenerator } from './secrets-generator.js';
import { resourcesByType, type GeneratedResources } from './resources.js';

/** What each kind of proxy gets, in generation order (Kuma's default proxy profile). */
export const PROFILES: { readonly [K in ProxyKind]: readonly ResourceGenerator[] } = {
  envoy: [inboundProxyGenerator, outboundProxyGenerator, secretsGenerator],
  grpc: [proxylessGrpcGenerator],
};

/**
 * A generator whose resources are each the very object the mesh's previous context gave for the
 * same content (see `canonical`), so that after a change only what changed is edited and encoded
 * again. Found once per list a generator returns: a memoized list (every client's outbounds) is
 * not looked up again for every proxy.
 */
function canonicalGenerator(generator: ResourceGenerator): ResourceGenerator {
  return {
    name: generator.name,
    generate(context, proxy) {
      const generated = generator.generate(context, proxy);
      let found = canonicalLists.get(generated);
      if (found === undefined) canonicalLists.set(generated, (found = canonicalResources(context, generated)));
      return found;
    },
  };
}

const canonicalLists = new WeakMap<GeneratedResources, GeneratedResources>();

function canonicalResources(context: MeshContext, generated: GeneratedResources): GeneratedResources {
  const canonicalOf = (typeUrl: XdsTypeUrl) => {
    const list = generated[typeUrl];
    const found = list.map((named) => {
      const resource = canonical(context, typeUrl, named.resource);
      return resource === named.resource ? named : { name: named.name, resource };
    });
    return found.every((named, at) => named === list[at]) ? list : found;
  };
  return resourcesByType(canonicalOf);
}

const GENERATORS: { readonly [K in ProxyKind]: ResourceGenerator } = {
  envoy: new CompositeGenerator('envoy-profile', PROFILES.envoy.map(canonicalGenerator)),
  grpc: new CompositeGenerator('grpc-profile', PROFILES.grpc.map(canonicalGenerator)),
};

/** One proxy's connectivity by its kind's profile, before any policy: what the policy plugins start from. */
export function generateProxyResources(context: MeshContext, proxy: Proxy): GeneratedResources {
  return GENERATORS[proxy.kind].generate(context, proxy);
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
