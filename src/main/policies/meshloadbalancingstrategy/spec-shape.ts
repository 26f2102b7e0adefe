import { defaultsIn, list, object, type SpecShape } from '../core/spec-shape.js';

const hashPolicies = list(
  object({
    type: 'string',
    terminal: 'boolean',
    header: object({ name: 'string' }, ['name']),
    cookie: object({ name: 'string', ttl: 'string', path: 'string' }, ['name']),
    connection: object({ sourceIP: 'boolean' }),
    queryParameter: object({ name: 'string' }, ['name']),
    filterState: object({ key: 'string' }, ['key']),
  }, ['type']),
);
const zones = list('string');

/** Kuma's MeshLoadBalancingStrategy schema (rest.yaml): the `default` of each `to` item. */
export const meshLoadBalancingStrategySpecShape: SpecShape = defaultsIn(
  ['to'],
  object({
    localityAwareness: object({
      disabled: 'boolean',
      localZone: object({ affinityTags: list(object({ key: 'string', weight: 'integer' }, ['key'])) }),
      crossZone: object({
        failover: list(object({ from: object({ zones }, ['zones']), to: object({ type: 'string', zones }, ['type']) }, ['to'])),
        failoverThreshold: object({ percentage: 'int-or-string' }, ['percentage']),
      }),
    }),
    loadBalancer: object({
      type: 'string',
      roundRobin: object({}),
      leastRequest: object({ choiceCount: 'integer', activeRequestBias: 'int-or-string' }),
      ringHash: object({ hashFunction: 'string', minRingSize: 'integer', maxRingSize: 'integer', hashPolicies }),
      random: object({}),
      maglev: object({ tableSize: 'integer', hashPolicies }),
    }, ['type']),
    hashPolicies,
  }),
);
