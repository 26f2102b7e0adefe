// MeshLoadBalancingStrategy's `default` conf (Kuma's
// pkg/plugins/policies/meshloadbalancingstrategy/api/v1alpha1/meshloadbalancingstrategy.go).
// An IntOrString is a number or a decimal string; durations are Go duration strings.

export interface MeshLoadBalancingStrategyConf {
  localityAwareness?: LocalityAwareness;
  loadBalancer?: LoadBalancer;
  hashPolicies?: HashPolicy[];
}

export interface LocalityAwareness {
  disabled?: boolean;
  localZone?: { affinityTags?: AffinityTag[] };
  crossZone?: CrossZone;
}

export interface AffinityTag {
  key: string;
  weight?: number;
}

export interface CrossZone {
  failover?: Failover[];
  failoverThreshold?: { percentage: number | string };
}

export interface Failover {
  from?: { zones: string[] };
  to: { type: ToZoneType; zones?: string[] };
}

export type ToZoneType = 'None' | 'Only' | 'Any' | 'AnyExcept';

export type LoadBalancerType = 'RoundRobin' | 'LeastRequest' | 'RingHash' | 'Random' | 'Maglev';

export interface LoadBalancer {
  type: LoadBalancerType;
  roundRobin?: Record<string, never>;
  leastRequest?: { choiceCount?: number; activeRequestBias?: number | string };
  ringHash?: RingHash;
  random?: Record<string, never>;
  maglev?: { tableSize?: number; hashPolicies?: HashPolicy[] };
}

export interface RingHash {
  hashFunction?: 'XXHash' | 'MurmurHash2';
  minRingSize?: number;
  maxRingSize?: number;
  hashPolicies?: HashPolicy[];
}

export type HashPolicyType = 'Header' | 'Cookie' | 'Connection' | 'SourceIP' | 'QueryParameter' | 'FilterState';

export interface HashPolicy {
  type: HashPolicyType;
  terminal?: boolean;
  header?: { name: string };
  cookie?: { name: string; ttl?: string; path?: string };
  connection?: { sourceIP?: boolean };
  queryParameter?: { name: string };
  filterState?: { key: string };
}

/** The hash policies that apply (Kuma's getHashPolicies): the root ones, else those of a RingHash or Maglev balancer. */
export function effectiveHashPolicies(conf: MeshLoadBalancingStrategyConf): HashPolicy[] | undefined {
  if (conf.hashPolicies) return conf.hashPolicies;
  if (conf.loadBalancer?.type === 'RingHash') return conf.loadBalancer.ringHash?.hashPolicies;
  if (conf.loadBalancer?.type === 'Maglev') return conf.loadBalancer.maglev?.hashPolicies;
  return undefined;
}
