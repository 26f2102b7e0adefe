// MeshTrafficPermission on an Envoy sidecar (Kuma's plugin/v1alpha1/plugin.go): with mTLS on in the
// proxy's mesh, an RBAC filter on the mTLS filter chain of every inbound — the one chain of STRICT,
// the ALPN `kuma` chain of PERMISSIVE. Plaintext chains are left alone: there is no identity to check.
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import { TLS_INSPECTOR_FILTER, TLS_INSPECTOR_TYPE_URL, TLS_TRANSPORT_SOCKET } from '../../xds/generate/extension-types.js';
import { sanitizeMetric } from '../../xds/generate/names.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { httpConnectionManagerIndex, withChainFilters, withHttpConnectionManager } from '../core/listener-filters.js';
import type { PluginInput } from '../core/plugin.js';
import { inboundSides } from '../core/proxy-sides.js';
import type { InboundRule } from '../core/rules.js';
import type { MeshTrafficPermissionConf } from './api.js';
import { HTTP_RBAC_FILTER, HTTP_RBAC_TYPE_URL, NETWORK_RBAC_FILTER, NETWORK_RBAC_TYPE_URL, rbacFilterFields, rbacForInbound, rbacScopeOf, type InboundRbac } from './rbac.js';

export function applyMeshTrafficPermissionToEnvoy(input: PluginInput<MeshTrafficPermissionConf>): void {
  const { proxy, context, rules, resources } = input;
  if (!meshMtls(context.mesh)) return;
  const scope = rbacScopeOf(input);
  for (const inbound of inboundSides(proxy)) {
    const listener = resources.get(LISTENER_TYPE_URL, inbound.listener);
    if (!listener) continue;
    const rbac = rbacForInbound(rules, inbound.key, scope);
    const [changed, set] = withRbac(listener, inbound.listener, rbac);
    if (set.length === 0) continue;
    const sniMatched = hasSniMatch(rules.inbound.get(inbound.key) ?? []);
    resources.put(LISTENER_TYPE_URL, inbound.listener, sniMatched ? withTlsInspector(changed) : changed, set);
  }
}

/**
 * Kuma's RBAC configurers: on each mTLS chain, an HTTP chain gets the RBAC HTTP filter first in its
 * HttpConnectionManager (better stats than at the connection), any other chain the network RBAC
 * filter first, with Kuma's stat prefix `<listener>.` (the dot keeps `rbac.allowed` apart).
 */
function withRbac(listener: ProtoJson, name: string, rbac: InboundRbac): [ProtoJson, { path: string; origins: readonly PolicyOrigin[] }[]] {
  let changed = listener;
  const set: { path: string; origins: readonly PolicyOrigin[] }[] = [];
  ((listener.filter_chains ?? []) as readonly ProtoJson[]).forEach((chain, index) => {
    if ((chain.transport_socket as ProtoJson | undefined)?.name !== TLS_TRANSPORT_SOCKET) return;
    const filters = (chain.filters ?? []) as readonly ProtoJson[];
    const hcmAt = httpConnectionManagerIndex(filters);
    if (hcmAt >= 0) {
      const hcm = filters[hcmAt]!.typed_config as ProtoJson;
      const httpFilter = { name: HTTP_RBAC_FILTER, typed_config: { '@type': HTTP_RBAC_TYPE_URL, ...rbacFilterFields(rbac) } };
      const httpFilters = [httpFilter, ...((hcm.http_filters ?? []) as readonly ProtoJson[])];
      changed = withChainFilters(changed, index, withHttpConnectionManager(filters, { ...hcm, http_filters: httpFilters }));
      set.push({ path: `filter_chains[${index}].filters[${hcmAt}].typed_config.http_filters[0]`, origins: rbac.origins });
    } else {
      const networkFilter = { name: NETWORK_RBAC_FILTER, typed_config: { '@type': NETWORK_RBAC_TYPE_URL, stat_prefix: `${sanitizeMetric(name)}.`, ...rbacFilterFields(rbac) } };
      changed = withChainFilters(changed, index, [networkFilter, ...filters]);
      set.push({ path: `filter_chains[${index}].filters[0]`, origins: rbac.origins });
    }
  });
  return [changed, set];
}

/** Kuma's hasSNIMatch: a rule matching the SNI a caller asked for needs the TLS inspector to read it. */
function hasSniMatch(rules: readonly InboundRule<MeshTrafficPermissionConf>[]): boolean {
  return rules.some(({ conf }) => [...(conf.deny ?? []), ...(conf.allow ?? []), ...(conf.allowWithShadowDeny ?? [])].some((match) => match.sni !== undefined));
}

/** Kuma's ensureTLSInspector: the listener with the TLS inspector, added once. */
function withTlsInspector(listener: ProtoJson): ProtoJson {
  const filters = (listener.listener_filters ?? []) as readonly ProtoJson[];
  if (filters.some((filter) => filter.name === TLS_INSPECTOR_FILTER)) return listener;
  return { ...listener, listener_filters: [...filters, { name: TLS_INSPECTOR_FILTER, typed_config: { '@type': TLS_INSPECTOR_TYPE_URL } }] };
}
