// MeshTrafficPermission on proxyless gRPC servers (gRFC A41): the RBAC HTTP filter on the listener
// of each inbound an xDS-enabled gRPC server serves (grpc-server-listeners.ts), on its mTLS chain.
// gRPC reads RBAC's `rules` only: neither grpc-js-xds nor C-core reads `matcher` (C-core then
// enforces nothing, grpc-js-xds refuses the listener) or `shadow_rules`. So Kuma's `rules` API,
// which Envoy gets as a matcher, is written here as the ALLOW policy it means, and what gRPC
// cannot do (shadow denials, SNI) is reported on the proxy.
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import { grpcServerListenerName } from '../../xds/generate/grpc-server-listeners.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { insertHttpFiltersBeforeRouter } from '../core/listener-filters.js';
import type { Draft } from '../core/draft.js';
import { httpConnectionManagers } from '../core/listener-parts.js';
import type { PluginInput } from '../core/plugin.js';
import type { RuleMatch } from '../core/policy.js';
import { policyKri } from '../core/policy-kri.js';
import { inboundKey, type InboundRule } from '../core/rules.js';
import { keyOf, putEdited } from '../core/shared-edits.js';
import { reportUnapplied } from '../core/unapplied.js';
import type { MeshTrafficPermissionConf } from './api.js';
import { meshTrafficPermissionDescriptor } from './descriptor.js';
import { HTTP_RBAC_FILTER, HTTP_RBAC_TYPE_URL, rbacForInbound, rbacScopeOf, type RbacScope } from './rbac.js';

const NO_SHADOW =
  'gRPC has no shadow rules (gRFC A41 reads only RBAC `rules`): these callers are allowed, but nothing records that a Deny would refuse them';
const NO_SNI = 'a gRPC server reads no SNI (gRFC A41: the requested server name is empty), so this match never holds';

export function applyMeshTrafficPermissionToGrpc(input: PluginInput<MeshTrafficPermissionConf>): void {
  const { proxy, context, resources } = input;
  // As Kuma: without mTLS there is no caller identity, and no permission is enforced.
  if (meshMtls(context.mesh) === undefined) return;
  const { networking } = proxy.dataplane.spec;
  for (const inbound of networking.inbound ?? []) {
    const address = inbound.address ?? networking.address;
    const key = inboundKey(address, inbound.port);
    const { rules: rbacRules, origins } = grpcRbac(input, key);
    const filter = { name: HTTP_RBAC_FILTER, typed_config: { '@type': HTTP_RBAC_TYPE_URL, rules: rbacRules } };
    putEdited(resources, LISTENER_TYPE_URL, grpcServerListenerName(address, inbound.port), ['MeshTrafficPermission gRPC RBAC', keyOf(filter), JSON.stringify(origins)], (listener) =>
      withRbacFilter(listener, filter, origins),
    );
  }
}

/**
 * The RBAC `rules` of one inbound as gRPC enforces them: Kuma's legacy form (and its deny-all) as
 * the Envoy plugin writes it, without its shadow rules; the `rules` API as one ALLOW policy.
 */
function grpcRbac(input: PluginInput<MeshTrafficPermissionConf>, key: string): { rules: ProtoJson; origins: readonly PolicyOrigin[] } {
  const scope = rbacScopeOf(input);
  const rbac = rbacForInbound(input.rules, key, scope);
  if (rbac.form === 'rules') {
    for (const rule of input.rules.from.get(key) ?? []) {
      if (rule.conf.action === 'AllowWithShadowDeny') reportUnapplied(input, rule.origins, 'action', NO_SHADOW);
    }
    return { rules: rbac.rules, origins: rbac.origins };
  }
  return { rules: allowPolicyOf(input, input.rules.inbound.get(key) ?? [], scope), origins: rbac.origins };
}

/**
 * Kuma's RBAC matcher (every rule's deny matches first, then allow and allowWithShadowDeny, else
 * deny) as an ALLOW policy per rule: a caller is allowed when it matches the rule's allow list and
 * no deny match of any rule. Policies are named by the rule's policy KRI, as Kuma's actions are.
 */
function allowPolicyOf(input: PluginInput<MeshTrafficPermissionConf>, rules: readonly InboundRule<MeshTrafficPermissionConf>[], scope: RbacScope): ProtoJson {
  const principalsOf = (rule: InboundRule<MeshTrafficPermissionConf>, field: 'deny' | 'allow' | 'allowWithShadowDeny') =>
    (rule.conf[field] ?? []).flatMap((match, index) => {
      if (match.sni) {
        reportUnapplied(input, rule.origins, `${field}[${index}].sni`, NO_SNI);
        return [];
      }
      return match.spiffeID ? [spiffePrincipal(match.spiffeID)] : [];
    });
  const denied = rules.flatMap((rule) => principalsOf(rule, 'deny'));
  const policies: Record<string, ProtoJson> = {};
  for (const rule of rules) {
    if (rule.conf.allowWithShadowDeny !== undefined) reportUnapplied(input, rule.origins, 'allowWithShadowDeny', NO_SHADOW);
    const allowed = [...principalsOf(rule, 'allow'), ...principalsOf(rule, 'allowWithShadowDeny')];
    if (allowed.length === 0) continue;
    const principal = denied.length === 0 ? anyOf(allowed) : { and_ids: { ids: [anyOf(allowed), { not_id: anyOf(denied) }] } };
    const name = policyKri(meshTrafficPermissionDescriptor.shortName, rule.origins, scope.policyNamed);
    const policy = (policies[name] ??= { permissions: [{ any: true }], principals: [] });
    (policy.principals as ProtoJson[]).push(principal);
  }
  // ALLOW (the enum's default) with no policy: every caller is denied, as the matcher's on_no_match.
  return Object.keys(policies).length > 0 ? { policies } : {};
}

/** gRFC A41: `principal_name` holds when any URI SAN of the caller's certificate matches. */
function spiffePrincipal(spiffeID: NonNullable<RuleMatch['spiffeID']>): ProtoJson {
  return { authenticated: { principal_name: spiffeID.type === 'Prefix' ? { prefix: spiffeID.value } : { exact: spiffeID.value } } };
}

function anyOf(principals: readonly ProtoJson[]): ProtoJson {
  return principals.length === 1 ? principals[0]! : { or_ids: { ids: principals } };
}

/**
 * The listener with the RBAC filter before the router of each mTLS chain's HttpConnectionManager:
 * Kuma enforces permissions only where its TLS authenticates the caller (a PERMISSIVE proxyless
 * server is plaintext and has no caller identity).
 */
function withRbacFilter(listener: Draft, filter: ProtoJson, origins: readonly PolicyOrigin[]) {
  const set: { path: string; origins: readonly PolicyOrigin[] }[] = [];
  const chains = (listener.filter_chains ?? []) as Draft[];
  const secured = chains.flatMap((chain, index) => (chain.transport_socket === undefined ? [] : [`filter_chains[${index}].`]));
  for (const { path, value: hcm } of httpConnectionManagers(listener)) {
    if (!secured.some((chain) => path.startsWith(chain))) continue;
    const { hcm: withFilter, index } = insertHttpFiltersBeforeRouter(hcm, [filter]);
    Object.assign(hcm, withFilter);
    set.push({ path: `${path}.http_filters[${index}]`, origins });
  }
  return set.length > 0 ? set : undefined;
}
