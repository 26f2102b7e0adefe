import { defaultsIn, list, object, oneOf, type SpecShape } from '../core/spec-shape.js';
import { servedDuration, servedInteger, servedString } from '../core/served-value.js';

const CLUSTER = 'envoy.config.cluster.v3.Cluster';
const HASH_POLICY = 'envoy.config.route.v3.RouteAction.HashPolicy';

const hashPolicies = list(
  object({
    // Kuma's schema's enum: another type has no Envoy hash policy to write.
    type: oneOf('Header', 'Cookie', 'Connection', 'SourceIP', 'QueryParameter', 'FilterState'),
    terminal: 'boolean',
    // Kuma takes an empty name or key; Envoy's hash policy needs one.
    header: object({ name: servedString(`${HASH_POLICY}.Header.header_name`) }, ['name']),
    cookie: object({ name: servedString(`${HASH_POLICY}.Cookie.name`), ttl: servedDuration(`${HASH_POLICY}.Cookie.ttl`), path: 'string' }, ['name']),
    connection: object({ sourceIP: 'boolean' }),
    queryParameter: object({ name: servedString(`${HASH_POLICY}.QueryParameter.name`) }, ['name']),
    filterState: object({ key: servedString(`${HASH_POLICY}.FilterState.key`) }, ['key']),
  }, ['type']),
);
const zones = list('string');

/** Kuma's MeshLoadBalancingStrategy schema (rest.yaml): the `default` of each `to` item. */
export const meshLoadBalancingStrategySpecShape: SpecShape = defaultsIn(
  ['to'],
  object({
    localityAwareness: object({
      disabled: 'boolean',
      localZone: object({ affinityTags: list(object({ key: 'string', weight: servedInteger('uint32') }, ['key'])) }),
      crossZone: object({
        failover: list(object({ from: object({ zones }, ['zones']), to: object({ type: 'string', zones }, ['type']) }, ['to'])),
        failoverThreshold: object({ percentage: 'int-or-string' }, ['percentage']),
      }),
    }),
    loadBalancer: object({
      // Kuma's schema's enum: another type has no Envoy lb_policy to write.
      type: oneOf('RoundRobin', 'LeastRequest', 'RingHash', 'Random', 'Maglev'),
      roundRobin: object({}),
      leastRequest: object({ choiceCount: servedInteger('uint32', `${CLUSTER}.LeastRequestLbConfig.choice_count`), activeRequestBias: 'int-or-string' }),
      ringHash: object({
        hashFunction: 'string',
        minRingSize: servedInteger('uint32', `${CLUSTER}.RingHashLbConfig.minimum_ring_size`),
        maxRingSize: servedInteger('uint32', `${CLUSTER}.RingHashLbConfig.maximum_ring_size`),
        hashPolicies,
      }),
      random: object({}),
      maglev: object({ tableSize: servedInteger('uint32', `${CLUSTER}.MaglevLbConfig.table_size`), hashPolicies }),
    }, ['type']),
    hashPolicies,
  }),
);
