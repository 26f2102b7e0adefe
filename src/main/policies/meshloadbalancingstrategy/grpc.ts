import { SERVICE_TAG } from '../../../shared/resources.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PluginInput, UnappliedField } from '../core/plugin.js';
import { dataplaneTagSet } from '../core/proxy-tags.js';
import { outboundServiceNames } from '../core/outbound-targets.js';
import { ruleFor, type Rule } from '../core/rules.js';
import { effectiveHashPolicies, type HashPolicy, type MeshLoadBalancingStrategyConf } from './api.js';
import { ringHashCrashReason } from './c-core-ring-hash.js';
import { putChanged, withHashPolicies } from './envoy.js';
import { hashPolicyJson, loadBalancerFields } from './load-balancer.js';
import { localityAwareAssignment, proxyZone, type LocalitySide } from './locality-aware.js';

type Conf = MeshLoadBalancingStrategyConf;

/**
 * The largest ring gRPC builds (grpc-js-xds refuses a cluster asking for more, gRFC A42).
 * node_modules/@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type.js
 */
const GRPC_MAX_RING_SIZE = 8_388_608;
/** The one filter state key gRPC hashes on (gRFC A42): the channel, so that one client sticks to one endpoint. */
const GRPC_CHANNEL_ID_KEY = 'io.grpc.channel_id';

/**
 * MeshLoadBalancingStrategy for proxyless gRPC, in the form gRFC A42 and grpc-js-xds implement:
 * the cluster's `lb_policy` ROUND_ROBIN or RING_HASH (hash function XX_HASH only, ring sizes up to
 * 8M), hash policies on the service's routes by header or channel id, and locality awareness as
 * EDS priorities and locality weights (contiguous priorities, every locality weighted, as gRPC
 * requires). The rest is reported as unapplied: gRPC has no LeastRequest, Random or Maglev
 * balancer from xDS and no cookie, connection or query parameter to hash on.
 */
export function applyMeshLoadBalancingStrategyToGrpc({ proxy, context, rules, resources, unapplied }: PluginInput<Conf>): void {
  const tags = dataplaneTagSet(proxy.dataplane);
  const side: LocalitySide = { zone: proxyZone(tags), tags, labels: proxy.dataplane.meta.labels ?? {} };
  const report = reporter(unapplied);
  for (const service of outboundServiceNames(proxy)) {
    const rule = ruleFor(rules.to, { [SERVICE_TAG]: service });
    if (!rule) continue;
    const cluster = resources.get(CLUSTER_TYPE_URL, service);
    if (cluster) {
      const balancer = grpcBalancer(service, rule, report, ringHashCrashReason(proxy.userAgent));
      putChanged(resources, CLUSTER_TYPE_URL, service, cluster, { ...cluster, ...balancer }, rule.origins, ['lb_policy', 'ring_hash_lb_config']);
    }

    const route = resources.get(ROUTE_TYPE_URL, service);
    const hashPolicies = grpcHashPolicies(rule, report);
    if (route && hashPolicies.length > 0) {
      const set: string[] = [];
      const changed = withHashPolicies(route, hashPolicies, '', set);
      resources.put(ROUTE_TYPE_URL, service, changed, set.map((path) => ({ path, origins: rule.origins })));
    }

    const cla = resources.get(ENDPOINT_TYPE_URL, service);
    if (cla) {
      const zoned = localityAwareAssignment(withoutLocalities(cla), rule.conf, side);
      putChanged(resources, ENDPOINT_TYPE_URL, service, cla, forGrpc(zoned, context.mesh.meta.name), rule.origins, ['endpoints', 'policy.overprovisioning_factor']);
    }
  }
}

type Report = (rule: Rule<Conf>, field: string, reason: string) => void;

/** Reports each unapplied field once per policy item, whatever the number of services it reaches. */
function reporter(unapplied: (field: UnappliedField) => void): Report {
  const reported = new Set<string>();
  return (rule, field, reason) => {
    for (const origin of rule.origins) {
      const key = `${origin.mesh}/${origin.name}/${origin.item}/${field}`;
      if (reported.has(key)) continue;
      reported.add(key);
      unapplied({ policy: { type: origin.type, name: origin.name }, field: `${origin.item}.default.${field}`, reason });
    }
  };
}

/**
 * The cluster fields gRPC reads for the conf's balancer (gRFC A42: ROUND_ROBIN or RING_HASH);
 * none for ring hash when `ringHashCrash` says why this client must not get it.
 */
function grpcBalancer(service: string, rule: Rule<Conf>, report: Report, ringHashCrash: string | undefined): ProtoJson {
  const loadBalancer = rule.conf.loadBalancer;
  if (!loadBalancer) return {};
  if (loadBalancer.type === 'RoundRobin') return loadBalancerFields(loadBalancer, service);
  if (loadBalancer.type !== 'RingHash') {
    report(rule, 'loadBalancer.type', `gRPC balances only by round robin or ring hash from xDS, not ${loadBalancer.type}: the client keeps round robin`);
    return {};
  }
  if (ringHashCrash !== undefined) {
    report(rule, 'loadBalancer.type', ringHashCrash);
    return {};
  }
  const ringHash = loadBalancer.ringHash ?? {};
  if (ringHash.hashFunction === 'MurmurHash2') report(rule, 'loadBalancer.ringHash.hashFunction', 'gRPC hashes with XXHash only: XXHash is used');
  const capped = (size: number | undefined, field: string) => {
    if (size === undefined || size <= GRPC_MAX_RING_SIZE) return size;
    report(rule, `loadBalancer.ringHash.${field}`, `gRPC builds rings of at most ${GRPC_MAX_RING_SIZE} entries: ${GRPC_MAX_RING_SIZE} is used`);
    return GRPC_MAX_RING_SIZE;
  };
  const { hashFunction: _hashFunction, ...sizes } = ringHash;
  return loadBalancerFields(
    { type: 'RingHash', ringHash: { ...sizes, minRingSize: capped(sizes.minRingSize, 'minRingSize'), maxRingSize: capped(sizes.maxRingSize, 'maxRingSize') } },
    service,
  );
}

/** The hash policies gRPC hashes on (a header, or the channel's id); the others are reported. */
function grpcHashPolicies(rule: Rule<Conf>, report: Report): ProtoJson[] {
  const policies = effectiveHashPolicies(rule.conf) ?? [];
  const field = rule.conf.hashPolicies ? 'hashPolicies' : `loadBalancer.${rule.conf.loadBalancer?.type === 'Maglev' ? 'maglev' : 'ringHash'}.hashPolicies`;
  const supported = (policy: HashPolicy) => policy.type === 'Header' || (policy.type === 'FilterState' && policy.filterState?.key === GRPC_CHANNEL_ID_KEY);
  policies.forEach((policy, index) => {
    if (!supported(policy)) {
      report(rule, `${field}[${index}]`, `gRPC hashes only on a header or the filter state ${GRPC_CHANNEL_ID_KEY}, not on ${policy.type}${policy.type === 'FilterState' ? ` ${policy.filterState?.key}` : ''}`);
    }
  });
  return policies.filter(supported).map(hashPolicyJson);
}

/** The assignment with its endpoints out of meshdesk's one gRPC locality, so that zones place them as for Envoy. */
function withoutLocalities(cla: ProtoJson): ProtoJson {
  return { ...cla, endpoints: ((cla['endpoints'] ?? []) as ProtoJson[]).map(({ locality: _locality, load_balancing_weight: _weight, ...group }) => group) };
}

/**
 * What gRPC accepts (grpc-js-xds endpoint-resource-type.js): every locality weighted (it drops
 * the others), priorities 0…n without gaps; endpoints of no zone in a locality named after the mesh.
 */
function forGrpc(cla: ProtoJson, meshName: string): ProtoJson {
  const groups = (cla['endpoints'] ?? []) as ProtoJson[];
  const priorities = [...new Set(groups.map((group) => Number(group['priority'] ?? 0)))].sort((a, b) => a - b);
  return {
    ...cla,
    endpoints: groups.map((group) => {
      const locality = (group['locality'] ?? {}) as ProtoJson;
      const priority = priorities.indexOf(Number(group['priority'] ?? 0));
      const { priority: _priority, ...rest } = group;
      return {
        ...rest,
        locality: { ...locality, zone: locality['zone'] || meshName },
        load_balancing_weight: group['load_balancing_weight'] ?? 1,
        ...(priority > 0 && { priority }),
      };
    }),
  };
}
