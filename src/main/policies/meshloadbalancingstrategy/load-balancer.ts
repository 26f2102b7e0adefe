import { goDurationToProtoJson } from '../../resources/go-duration.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { decimalFromIntOrString } from '../core/conf-checks.js';
import type { HashPolicy, LoadBalancer } from './api.js';

// The cluster and route fields of Kuma's MeshLoadBalancingStrategy plugin (plugin/v1alpha1/plugin.go:
// loadBalancerConfigurer, hashPolicy), as proto JSON.

const LB_POLICIES = {
  RoundRobin: 'ROUND_ROBIN',
  LeastRequest: 'LEAST_REQUEST',
  Random: 'RANDOM',
  RingHash: 'RING_HASH',
  Maglev: 'MAGLEV',
} as const;

/**
 * Kuma's loadBalancerConfigurer: `lb_policy` and the policy's own config, when the conf gives one.
 * Envoy requires a runtime key beside the active request bias (RuntimeDouble.runtime_key, min_len
 * 1), which Kuma leaves out; one named after the cluster is given, and no runtime layer sets it.
 */
export function loadBalancerFields(loadBalancer: LoadBalancer, cluster: string): ProtoJson {
  const lbPolicy = { lb_policy: LB_POLICIES[loadBalancer.type] };
  switch (loadBalancer.type) {
    case 'LeastRequest': {
      const config = loadBalancer.leastRequest;
      if (!config) return lbPolicy;
      const bias = config.activeRequestBias === undefined ? undefined : decimalFromIntOrString(config.activeRequestBias);
      return {
        ...lbPolicy,
        least_request_lb_config: {
          ...(config.choiceCount !== undefined && { choice_count: config.choiceCount }),
          ...(bias !== undefined && { active_request_bias: { default_value: bias, runtime_key: `meshdesk.${cluster}.active_request_bias` } }),
        },
      };
    }
    case 'RingHash': {
      const config = loadBalancer.ringHash;
      if (!config) return lbPolicy;
      return {
        ...lbPolicy,
        ring_hash_lb_config: {
          ...(config.minRingSize !== undefined && { minimum_ring_size: config.minRingSize }),
          ...(config.maxRingSize !== undefined && { maximum_ring_size: config.maxRingSize }),
          ...(config.hashFunction !== undefined && { hash_function: config.hashFunction === 'MurmurHash2' ? 'MURMUR_HASH_2' : 'XX_HASH' }),
        },
      };
    }
    case 'Maglev': {
      const config = loadBalancer.maglev;
      if (!config) return lbPolicy;
      return { ...lbPolicy, maglev_lb_config: { ...(config.tableSize !== undefined && { table_size: config.tableSize }) } };
    }
    default:
      return lbPolicy;
  }
}

/**
 * Kuma's hashPolicy: a route's `hash_policy` entry. `SourceIP` is read like `Connection` (the
 * validator asks both for `connection`); Kuma writes no specifier for it, which Envoy refuses.
 */
export function hashPolicyJson(policy: HashPolicy): ProtoJson {
  const terminal = policy.terminal !== undefined ? { terminal: policy.terminal } : {};
  switch (policy.type) {
    case 'Header':
      return { ...terminal, header: { header_name: policy.header?.name ?? '' } };
    case 'Cookie': {
      const ttl = policy.cookie?.ttl === undefined ? undefined : goDurationToProtoJson(policy.cookie.ttl);
      return {
        ...terminal,
        cookie: { name: policy.cookie?.name ?? '', ...(ttl !== undefined && { ttl }), ...(policy.cookie?.path !== undefined && { path: policy.cookie.path }) },
      };
    }
    case 'Connection':
    case 'SourceIP':
      return { ...terminal, connection_properties: { source_ip: policy.connection?.sourceIP ?? false } };
    case 'QueryParameter':
      return { ...terminal, query_parameter: { name: policy.queryParameter?.name ?? '' } };
    case 'FilterState':
      return { ...terminal, filter_state: { key: policy.filterState?.key ?? '' } };
  }
}
