import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG } from '../../../shared/resources.js';
import { fieldPath } from '../../resources/field-path.js';
import { HTTP_CONNECTION_MANAGER_FILTER } from '../../xds/generate/extension-types.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { EnvoyResources, FieldSet } from '../core/envoy-resources.js';
import { derived } from '../core/derived.js';
import type { PluginInput } from '../core/plugin.js';
import { dataplaneTagSet } from '../core/proxy-tags.js';
import { serviceClusterNames } from '../core/outbound-targets.js';
import { outboundServices, type OutboundService } from '../core/outbound-services.js';
import { ruleFor, type Rule } from '../core/rules.js';
import { effectiveHashPolicies, type MeshLoadBalancingStrategyConf } from './api.js';
import { hashPolicyJson, loadBalancerFields } from './load-balancer.js';
import { localityAwareAssignment, proxyZone, sideKeyOf, type LocalitySide } from './locality-aware.js';

type Conf = MeshLoadBalancingStrategyConf;

/**
 * Kuma's configureDPP: per outbound service with a conf, hash policies on the routes of its
 * outbound listener, the balancer on its clusters, and locality-aware priorities on its endpoints
 * (the ClusterLoadAssignment, or a cluster's inline assignment).
 */
export function applyMeshLoadBalancingStrategyToEnvoy({ proxy, rules, resources }: PluginInput<Conf>): void {
  const tags = dataplaneTagSet(proxy.dataplane);
  const side: LocalitySide = { zone: proxyZone(tags), tags, labels: proxy.dataplane.meta.labels ?? {} };
  const { byOutbound, byService } = outboundRules(rules.to, outboundServices(proxy));
  for (const { listener, rule } of byOutbound) addHashPolicies(resources, listener, rule);
  const clusters = serviceClusterNames(resources);
  for (const [service, rule] of byService) {
    const names = clusters.get(service) ?? [];
    for (const name of names) configureCluster(resources, name, resources.get(CLUSTER_TYPE_URL, name)!, rule, side);
    // The service's assignment and those of its split clusters.
    configureAssignment(resources, service, rule, side);
    for (const name of names) if (name !== service) configureAssignment(resources, name, rule, side);
  }
}

const ASSIGNMENT_PATHS = ['endpoints', 'policy.overprovisioning_factor'];

/** Kuma's endpointsConfigurer: locality-aware priorities on a ClusterLoadAssignment. */
function configureAssignment(resources: EnvoyResources, name: string, rule: Rule<Conf>, side: LocalitySide): void {
  const cla = resources.get(ENDPOINT_TYPE_URL, name);
  if (!cla) return;
  const changed = sharedPerSide(cla, cla, rule, side, () => localityAwareAssignment(cla, rule.conf, side));
  putChanged(resources, ENDPOINT_TYPE_URL, name, cla, changed, rule.origins, ASSIGNMENT_PATHS);
}

/** Each outbound with a rule (its listener), and each service's rule (the last outbound's, as Kuma's map keeps). */
interface OutboundRules {
  byOutbound: readonly { listener: string; rule: Rule<Conf> }[];
  byService: ReadonlyMap<string, Rule<Conf>>;
}

/** By `to` rules, then by outbounds: both immutable and shared by the proxies alike, so each outbound's rule is found once. */
const rulesByOutbounds = new WeakMap<readonly Rule<Conf>[], WeakMap<readonly OutboundService[], OutboundRules>>();

function outboundRules(to: readonly Rule<Conf>[], outbounds: readonly OutboundService[]): OutboundRules {
  let byOutbounds = rulesByOutbounds.get(to);
  if (byOutbounds === undefined) rulesByOutbounds.set(to, (byOutbounds = new WeakMap()));
  let found = byOutbounds.get(outbounds);
  if (found === undefined) {
    const byOutbound: { listener: string; rule: Rule<Conf> }[] = [];
    const byService = new Map<string, Rule<Conf>>();
    for (const { service, listener } of outbounds) {
      const rule = ruleFor(to, { [SERVICE_TAG]: service });
      if (!rule) continue;
      byOutbound.push({ listener, rule });
      byService.set(service, rule);
    }
    byOutbounds.set(outbounds, (found = { byOutbound, byService }));
  }
  return found;
}

/**
 * What the conf makes of a shared resource, made once per resource, rule and what the making reads
 * of the proxy's locality side (see `derived` and `sideKeyOf`): nothing for a cluster without an
 * inline assignment, at most the zone without regrouping. Proxies alike there then get the very
 * same objects, which later plugins' shared edits and the encoded-resource cache find by identity.
 */
function sharedPerSide(resource: ProtoJson, assignment: ProtoJson | undefined, rule: Rule<Conf>, side: LocalitySide, make: () => ProtoJson): ProtoJson {
  const shared = derived(resource, rule, () => ({
    keyOf: assignment === undefined ? () => '' : sideKeyOf(assignment, rule.conf),
    made: new Map<string, ProtoJson>(),
  }));
  const key = shared.keyOf(side);
  let made = shared.made.get(key);
  if (made === undefined) shared.made.set(key, (made = make()));
  return made;
}

/** Adds the conf's hash policies to every route of the listener's HttpConnectionManagers (Kuma's RoutesOnFilterChain). */
function addHashPolicies(resources: EnvoyResources, listenerName: string, rule: Rule<Conf>): void {
  // Asked first: a conf without hash policies leaves the listener unread (and so not a read its replay checks).
  const policies = effectiveHashPolicies(rule.conf);
  const listener = policies && resources.get(LISTENER_TYPE_URL, listenerName);
  if (!listener || !policies) return;
  // Made once per listener object and rule (see `derived`): every proxy with this outbound gets the same object.
  const { changed, set } = derived(listener, rule, () => {
    const set: string[] = [];
    const filterChains = ((listener['filter_chains'] ?? []) as ProtoJson[]).map((chain, chainIndex) => ({
      ...chain,
      filters: ((chain['filters'] ?? []) as ProtoJson[]).map((filter, filterIndex) => {
        const hcm = filter['typed_config'] as ProtoJson | undefined;
        const routeConfig = hcm?.['route_config'] as ProtoJson | undefined;
        if (filter['name'] !== HTTP_CONNECTION_MANAGER_FILTER || !routeConfig) return filter;
        const path = `filter_chains[${chainIndex}].filters[${filterIndex}].typed_config.route_config`;
        return { ...filter, typed_config: { ...hcm, route_config: withHashPolicies(routeConfig, policies.map(hashPolicyJson), path, set) } };
      }),
    }));
    return { changed: { ...listener, filter_chains: filterChains }, set: set.map((path) => ({ path, origins: rule.origins })) };
  });
  resources.put(LISTENER_TYPE_URL, listenerName, changed, set);
}

/** A route configuration whose every forwarding route gets `hashPolicies` after its own; `set` collects the changed paths. */
export function withHashPolicies(routeConfig: ProtoJson, hashPolicies: readonly ProtoJson[], path: string, set: string[]): ProtoJson {
  return {
    ...routeConfig,
    virtual_hosts: ((routeConfig['virtual_hosts'] ?? []) as ProtoJson[]).map((host, hostIndex) => ({
      ...host,
      routes: ((host['routes'] ?? []) as ProtoJson[]).map((route, routeIndex) => {
        const action = route['route'] as ProtoJson | undefined;
        if (!action) return route;
        set.push(`${fieldPath(path, 'virtual_hosts')}[${hostIndex}].routes[${routeIndex}].route.hash_policy`);
        return { ...route, route: { ...action, hash_policy: [...((action['hash_policy'] ?? []) as ProtoJson[]), ...hashPolicies] } };
      }),
    })),
  };
}

/** Kuma's clusterConfigurer (and staticCLAConfigurer for an inline assignment). */
function configureCluster(resources: EnvoyResources, name: string, cluster: ProtoJson, rule: Rule<Conf>, side: LocalitySide): void {
  const changed = sharedPerSide(cluster, cluster['load_assignment'] as ProtoJson | undefined, rule, side, () =>
    configuredCluster(name, cluster, rule.conf, side),
  );
  putChanged(resources, CLUSTER_TYPE_URL, name, cluster, changed, rule.origins, CLUSTER_PATHS);
}

const CLUSTER_PATHS = [
  'common_lb_config.locality_weighted_lb_config',
  'lb_policy',
  'least_request_lb_config',
  'ring_hash_lb_config',
  'maglev_lb_config',
  'load_assignment.endpoints',
  'load_assignment.policy.overprovisioning_factor',
];

function configuredCluster(name: string, cluster: ProtoJson, conf: Conf, side: LocalitySide): ProtoJson {
  let changed = cluster;
  // Weighted sub-zones need Envoy's locality-weighted balancing.
  if ((conf.localityAwareness?.localZone?.affinityTags ?? []).length > 0) {
    const { zone_aware_lb_config: _zoneAware, ...common } = (cluster['common_lb_config'] ?? {}) as ProtoJson;
    changed = { ...changed, common_lb_config: { ...common, locality_weighted_lb_config: {} } };
  }
  if (conf.loadBalancer) changed = { ...changed, ...loadBalancerFields(conf.loadBalancer, name) };
  const inline = cluster['load_assignment'] as ProtoJson | undefined;
  if (inline) changed = { ...changed, load_assignment: localityAwareAssignment(inline, conf, side) };
  return changed;
}

/**
 * By `after`, which a shared derivation makes from one `before` with one call site's paths and one
 * rule: compared once, not per proxy, and attributed with one list (the rule's origins).
 */
const changedPaths = new WeakMap<ProtoJson, { paths: readonly string[]; origins: readonly PolicyOrigin[]; set: readonly FieldSet[] }>();

/** Puts `after` when it differs from `before`, attributing those of `paths` whose value changed. */
export function putChanged(
  resources: EnvoyResources,
  typeUrl: typeof CLUSTER_TYPE_URL | typeof ENDPOINT_TYPE_URL,
  name: string,
  before: ProtoJson,
  after: ProtoJson,
  origins: readonly PolicyOrigin[],
  paths: readonly string[],
): void {
  if (after === before) return;
  let changed = changedPaths.get(after);
  if (changed === undefined) {
    const valueAt = (json: ProtoJson, path: string) => path.split('.').reduce<unknown>((value, key) => (value as ProtoJson | undefined)?.[key], json);
    const differing = paths.filter((path) => JSON.stringify(valueAt(before, path)) !== JSON.stringify(valueAt(after, path)));
    changedPaths.set(after, (changed = { paths: differing, origins, set: differing.map((path) => ({ path, origins })) }));
  }
  const set = changed.origins === origins ? changed.set : changed.paths.map((path) => ({ path, origins }));
  if (set.length > 0) resources.put(typeUrl, name, after, set);
}
