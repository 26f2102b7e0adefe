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

/** The matrix without where it is enforced (from the proxies' generated configs) and the next page's URL (from the request). */
export type PermissionMatrix = Omit<PermissionMatrixView, 'enforcement' | 'next'>;

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
 * Paths listed per cell: the first of each distinct verdict, then the first others. A cell holds one
 * path per destination inbound and caller group, which grows as the square of the Dataplanes of its
 * two services; its decision is still made from all of them.
 */
export const MAX_LISTED_PATHS = 10;

/** Which cells (callers major) an answer holds. */
export interface MatrixPage {
  offset: number;
  size: number;
}

/**
 * The decision of every destination inbound of the mesh for every caller, grouped services ×
 * services, for the cells of `page`. As Kuma's MeshTrafficPermission plugin: an inbound with
 * `rules` is decided by them (every deny first, then allow, else denied); one with only legacy
 * `from` by the first rule whose subset contains the caller (RBAC allows the Allow and
 * AllowWithShadowDeny subsets); one that no permission selects denies everyone. With mTLS off
 * nothing is checked: each path says what the rules will decide once it is on.
 * Each caller group is decided once per group of destination inbounds that share their rules, so
 * a page costs what its cells' distinct decisions cost, not the product of their Dataplanes.
 */
export function permissionMatrix(context: MeshContext, page: MatrixPage): PermissionMatrix {
  const mesh = context.mesh.meta.name;
  const mtls = meshMtls(context.mesh);
  const dataplanes = [...context.dataplanesByName.values()];
  const callersByService = groupBy(callersOf(mesh, dataplanes), (caller) => caller.service);
  const destinationsByService = groupBy(destinationsOf(dataplanes), (destination) => destination.service);
  const callerServices = [...callersByService.keys()].sort();
  const destinationServices = [...destinationsByService.keys()].sort();
  const warnings = new Set<string>();
  const ruleGroups = new Map<string, RuleGroups>();
  const groupsOf = (service: string) => {
    let groups = ruleGroups.get(service);
    if (!groups) ruleGroups.set(service, (groups = ruleGroupsOf(context, destinationsByService.get(service)!, warnings)));
    return groups;
  };
  const total = callerServices.length * destinationServices.length;
  const cells: PermissionCell[] = [];
  for (let index = page.offset; index < Math.min(total, page.offset + page.size); index++) {
    const caller = callerServices[Math.floor(index / destinationServices.length)]!;
    const destination = destinationServices[index % destinationServices.length]!;
    const sni = sniFromTags({ [SERVICE_TAG]: destination, mesh });
    cells.push(cellOf(caller, destination, callersByService.get(caller)!, groupsOf(destination), (rules, who) => {
      const decided = decide(rules.inbound, rules.from, who, sni);
      return mtls ? { verdict: decided } : { verdict: { decision: 'allowed', reason: NOT_ENFORCED }, whenEnforced: decided };
    }));
  }
  return {
    mesh,
    enforced: mtls !== undefined,
    ...(mtls && { mode: mtls.mode }),
    ...(!mtls ? { note: NOT_ENFORCED } : mtls.mode === 'PERMISSIVE' && { note: PERMISSIVE_NOTE }),
    callers: callerServices,
    destinations: destinationServices,
    total,
    offset: page.offset,
    cells,
    warnings: [...warnings],
  };
}

/** The rules one destination inbound decides by. */
interface InboundRules {
  inbound: readonly InboundRule<unknown>[] | undefined;
  from: readonly Rule<unknown>[] | undefined;
}

/** A destination service's inbounds (in order) and, for each, its group of inbounds with the very same rules. */
interface RuleGroups {
  destinations: readonly Destination[];
  groupOf: readonly number[];
  groups: readonly { rules: InboundRules; first: number }[];
}

function ruleGroupsOf(context: MeshContext, destinations: readonly Destination[], warnings: Set<string>): RuleGroups {
  const groups: { rules: InboundRules; first: number }[] = [];
  // Rules are shared by every inbound selected by the same policies (proxy-rules.ts): found by object.
  const byRules = new Map<unknown, Map<unknown, number>>();
  const groupOf = destinations.map((destination, index) => {
    const computed = computeProxyRules(context, destination.dataplane, 'MeshTrafficPermission');
    for (const warning of computed.warnings) warnings.add(warning);
    const rules = { inbound: computed.inboundRules.get(destination.inbound), from: computed.rules.from.get(destination.inbound) };
    let byFrom = byRules.get(rules.inbound);
    if (!byFrom) byRules.set(rules.inbound, (byFrom = new Map()));
    let group = byFrom.get(rules.from);
    if (group === undefined) byFrom.set(rules.from, (group = groups.push({ rules, first: index }) - 1));
    return group;
  });
  return { destinations, groupOf, groups };
}

type Judged = Pick<PermissionPath, 'verdict' | 'whenEnforced'>;

/**
 * One cell: its decision from every (destination inbound, caller group) path, each decided once
 * per rule group; its paths listed up to MAX_LISTED_PATHS, every distinct verdict among them.
 */
function cellOf(caller: string, destination: string, callers: readonly Caller[], groups: RuleGroups, judge: (rules: InboundRules, caller: Caller) => Judged): PermissionCell {
  const judged = groups.groups.map(({ rules }) => callers.map((who) => judge(rules, who)));
  const pathCount = groups.destinations.length * callers.length;
  // A path is numbered destination-major, as the cell lists them; each distinct verdict's first path is kept.
  const firstOfVerdict = new Map<string, number>();
  groups.groups.forEach(({ first }, group) =>
    judged[group]!.forEach((verdict, who) => {
      const key = JSON.stringify(verdict);
      const at = first * callers.length + who;
      if ((firstOfVerdict.get(key) ?? Infinity) > at) firstOfVerdict.set(key, at);
    }),
  );
  const listed = new Set([...firstOfVerdict.values()].sort((a, b) => a - b).slice(0, MAX_LISTED_PATHS));
  for (let at = 0; at < pathCount && listed.size < MAX_LISTED_PATHS; at++) listed.add(at);
  const paths = [...listed]
    .sort((a, b) => a - b)
    .map((at): PermissionPath => {
      const place = groups.destinations[Math.floor(at / callers.length)]!;
      const who = at % callers.length;
      return { dataplane: place.dataplane.meta.name, inbound: place.inbound, callers: callers[who]!.dataplanes, ...judged[groups.groupOf[Math.floor(at / callers.length)]!]![who]! };
    });
  const decisions = new Set(judged.flat().map(({ verdict }) => verdict.decision));
  return { caller, destination, decision: decisions.size === 1 ? [...decisions][0]! : 'mixed', pathCount, paths };
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(keyOf(item));
    if (group) group.push(item);
    else groups.set(keyOf(item), [item]);
  }
  return groups;
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
