// Which service may call which in a mesh: the decision each destination's RBAC filter makes for
// each caller, read from the same MeshTrafficPermission rules the filter is built from.
import type { PermissionCell, PermissionMatrixView, PermissionPath, PermissionVerdict } from '../../../shared/permission-types.js';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG, type DataplaneResource, type Tags } from '../../../shared/resources.js';
import { identityUris } from '../../mtls/mesh-ca.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import { identityTags } from '../../mtls/proxy-identities.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import { sniFromTags } from '../../xds/generate/tls-contexts.js';
import { inboundKeyOf } from '../core/matching.js';
import type { RuleMatch } from '../core/policy.js';
import { computeProxyRules } from '../core/proxy-rules.js';
import { ruleFor, type InboundKey, type InboundRule, type Rule, type Subset } from '../core/rules.js';
import type { MeshTrafficPermissionConf } from './api.js';

/** The matrix without where it is enforced: that comes from the proxies' generated configs. */
export type PermissionMatrix = Omit<PermissionMatrixView, 'enforcement'>;

/** A caller as the destination's proxy sees it: the certificate of one or more Dataplanes of a service. */
interface Caller {
  service: string;
  dataplanes: string[];
  /** The tags of its inbounds of this service: what legacy `from` subsets are matched against. */
  tags: Tags;
  /** Its certificate's URI SANs joined by commas: what Envoy's `uri_san` input hands a spiffeID match. */
  uriSans: string;
}

/** One destination inbound: where the destination's proxy checks its callers. */
interface Destination {
  service: string;
  dataplane: DataplaneResource;
  inbound: InboundKey;
}

const NOT_ENFORCED = 'mTLS is off: permissions are not enforced';
const PERMISSIVE_NOTE =
  'PERMISSIVE: a caller without mTLS reaches the inbound through its plaintext filter chain, which has no RBAC; proxyless gRPC servers serve plaintext only.';

/**
 * The decision of every destination inbound of the mesh for every caller, grouped services ×
 * services. As Kuma's MeshTrafficPermission plugin: an inbound with `rules` is decided by them
 * (every deny first, then allow, else denied); one with only legacy `from` by the first rule whose
 * subset contains the caller (RBAC allows the Allow and AllowWithShadowDeny subsets); one that no
 * permission selects denies everyone. With mTLS off nothing is checked: each path says what the
 * rules will decide once it is on.
 */
export function permissionMatrix(context: MeshContext): PermissionMatrix {
  const mesh = context.mesh.meta.name;
  const mtls = meshMtls(context.mesh);
  const dataplanes = [...context.dataplanesByName.values()];
  const callers = callersOf(mesh, dataplanes);
  const destinations = destinationsOf(dataplanes);
  const callerServices = [...new Set(callers.map((caller) => caller.service))].sort();
  const destinationServices = [...new Set(destinations.map((destination) => destination.service))].sort();
  const warnings = new Set<string>();
  const cells: PermissionCell[] = [];
  for (const callerService of callerServices) {
    for (const destinationService of destinationServices) {
      const paths: PermissionPath[] = [];
      for (const destination of destinations.filter((each) => each.service === destinationService)) {
        const computed = computeProxyRules(context, destination.dataplane, 'MeshTrafficPermission');
        for (const warning of computed.warnings) warnings.add(warning);
        for (const caller of callers.filter((each) => each.service === callerService)) {
          const decided = decide(computed.inboundRules.get(destination.inbound), computed.rules.from.get(destination.inbound), caller, sniFromTags({ [SERVICE_TAG]: destinationService, mesh }));
          paths.push({
            dataplane: destination.dataplane.meta.name,
            inbound: destination.inbound,
            callers: caller.dataplanes,
            ...(mtls ? { verdict: decided } : { verdict: { decision: 'allowed', reason: NOT_ENFORCED }, whenEnforced: decided }),
          });
        }
      }
      const decisions = new Set(paths.map((path) => path.verdict.decision));
      cells.push({ caller: callerService, destination: destinationService, decision: decisions.size === 1 ? [...decisions][0]! : 'mixed', paths });
    }
  }
  return {
    mesh,
    enforced: mtls !== undefined,
    ...(mtls && { mode: mtls.mode }),
    ...(!mtls ? { note: NOT_ENFORCED } : mtls.mode === 'PERMISSIVE' && { note: PERMISSIVE_NOTE }),
    callers: callerServices,
    destinations: destinationServices,
    cells,
    warnings: [...warnings],
  };
}

/**
 * Every service a Dataplane calls as (the services its identity certificate names), split by the
 * tags its certificate carries: Dataplanes with equal tags are one caller.
 */
function callersOf(mesh: string, dataplanes: readonly DataplaneResource[]): Caller[] {
  const byKey = new Map<string, Caller>();
  for (const dataplane of dataplanes) {
    const identity = identityTags(dataplane);
    const uriSans = identityUris(mesh, identity).join(',');
    for (const service of identity.get(SERVICE_TAG) ?? []) {
      const inbound = dataplane.spec.networking.inbound?.find((each) => each.tags?.[SERVICE_TAG] === service);
      const tags = inbound?.tags ?? { [SERVICE_TAG]: service };
      const key = JSON.stringify([service, uriSans, Object.entries(tags).sort()]);
      const caller = byKey.get(key);
      if (caller) caller.dataplanes.push(dataplane.meta.name);
      else byKey.set(key, { service, dataplanes: [dataplane.meta.name], tags, uriSans });
    }
  }
  return [...byKey.values()];
}

function destinationsOf(dataplanes: readonly DataplaneResource[]): Destination[] {
  return dataplanes.flatMap((dataplane) =>
    (dataplane.spec.networking.inbound ?? []).flatMap((inbound) => {
      const service = inbound.tags?.[SERVICE_TAG];
      return service === undefined ? [] : [{ service, dataplane, inbound: inboundKeyOf(dataplane, inbound) }];
    }),
  );
}

/** Kuma's plugin: `rules` when the inbound has any, else the legacy `from` rules, else deny all. */
function decide(rules: readonly InboundRule<unknown>[] | undefined, from: readonly Rule<unknown>[] | undefined, caller: Caller, sni: string): PermissionVerdict {
  if (rules && rules.length > 0) return decideByRules(rules as readonly InboundRule<MeshTrafficPermissionConf>[], caller, sni);
  if (from) return decideByFrom(from as readonly Rule<MeshTrafficPermissionConf>[], caller);
  return { decision: 'denied', reason: 'no MeshTrafficPermission selects this inbound: mTLS denies all' };
}

/** Legacy `from`: the first rule whose subset contains the caller (Kuma's subsets do not overlap). */
function decideByFrom(from: readonly Rule<MeshTrafficPermissionConf>[], caller: Caller): PermissionVerdict {
  const rule = ruleFor(from, caller.tags);
  if (!rule) {
    return { decision: 'denied', reason: `no 'from' item of the MeshTrafficPermissions on this inbound names this caller: RBAC allows only the callers they name` };
  }
  // The conf's one field is the action: the item merged last set it.
  const origin = rule.origins[rule.origins.length - 1]!;
  const who = `for ${describeSubset(rule.subset)}`;
  switch (rule.conf.action) {
    case 'Allow':
      return { decision: 'allowed', origin, reason: `action Allow ${who}` };
    case 'AllowWithShadowDeny':
      return { decision: 'shadow-denied', origin, reason: `action AllowWithShadowDeny ${who}: let through, logged as denied` };
    default:
      return { decision: 'denied', origin, reason: `action Deny ${who}` };
  }
}

/**
 * `rules` as Kuma's RBACConfigurer writes them: every `deny` match of every rule, then every
 * `allow` and `allowWithShadowDeny` match, first match wins, no match denies. When any rule has
 * `allowWithShadowDeny`, the shadow matcher denies every caller (those it names, and by default the
 * rest), so Envoy logs every call it lets through as shadow-denied.
 */
function decideByRules(rules: readonly InboundRule<MeshTrafficPermissionConf>[], caller: Caller, sni: string): PermissionVerdict {
  const first = (lists: (conf: MeshTrafficPermissionConf) => [string, RuleMatch[] | undefined][]) => {
    for (const rule of rules) {
      for (const [field, matches] of lists(rule.conf)) {
        const index = (matches ?? []).findIndex((match) => matchesCaller(match, caller, sni));
        if (index >= 0) return { origin: { ...rule.origins[0]!, item: `${rule.origins[0]!.item}.default.${field}[${index}]` }, match: matches![index]! };
      }
    }
    return undefined;
  };
  const denied = first((conf) => [['deny', conf.deny]]);
  if (denied) return { decision: 'denied', origin: denied.origin, reason: `deny ${describeMatch(denied.match)}` };
  const allowed = first((conf) => [
    ['allow', conf.allow],
    ['allowWithShadowDeny', conf.allowWithShadowDeny],
  ]);
  if (!allowed) return { decision: 'denied', reason: `no rule of the MeshTrafficPermissions on this inbound names this caller: denied by default${exactMatchHint(rules, caller)}` };
  const reason = `allow ${describeMatch(allowed.match)}`;
  const shadowing = rules.find((rule) => (rule.conf.allowWithShadowDeny ?? []).length > 0);
  if (!shadowing) return { decision: 'allowed', origin: allowed.origin, reason };
  const why = allowed.origin.item.includes('.allowWithShadowDeny[')
    ? 'let through, logged as denied'
    : `let through; the shadow rules (from ${describeOrigin(shadowing.origins[0]!)}) deny every caller they do not name, so it is logged as denied`;
  return { decision: 'shadow-denied', origin: allowed.origin, reason: `${reason}: ${why}` };
}

/** Kuma's matcher for one match: the spiffeID against the caller's URI SANs, and the SNI it asked for; both when both are set. */
function matchesCaller(match: RuleMatch, caller: Caller, sni: string): boolean {
  if (!match.spiffeID && !match.sni) return false;
  if (match.spiffeID) {
    const { type, value } = match.spiffeID;
    if (!(type === 'Exact' ? caller.uriSans === value : caller.uriSans.startsWith(value))) return false;
  }
  return !match.sni || match.sni.value === sni;
}

/**
 * Envoy's `uri_san` input is every URI SAN of the certificate joined by commas, and a builtin-CA
 * identity carries `kuma://` URIs besides its SPIFFE ID: an Exact match on the SPIFFE ID alone
 * never holds. Said when that is why a caller fell through.
 */
function exactMatchHint(rules: readonly InboundRule<MeshTrafficPermissionConf>[], caller: Caller): string {
  const ids = caller.uriSans.split(',');
  const exact = rules
    .flatMap((rule) => [...(rule.conf.allow ?? []), ...(rule.conf.allowWithShadowDeny ?? [])])
    .find((match) => match.spiffeID?.type === 'Exact' && ids.includes(match.spiffeID.value) && ids.length > 1);
  return exact
    ? ` (spiffeID Exact ${exact.spiffeID!.value} is one of its URI SANs, but Envoy compares it with all of them joined by commas: use a Prefix match)`
    : '';
}

function describeOrigin(origin: PolicyOrigin): string {
  return `${origin.type} ${origin.name} ${origin.item}`;
}

function describeSubset(subset: Subset): string {
  if (subset.length === 0) return 'every caller';
  return subset.map(({ key, value, not }) => `${key}${not ? '!=' : '='}${value}`).join(', ');
}

function describeMatch(match: RuleMatch): string {
  return [match.spiffeID && `spiffeID ${match.spiffeID.type} ${match.spiffeID.value}`, match.sni && `SNI ${match.sni.value}`].filter(Boolean).join(' and ');
}
