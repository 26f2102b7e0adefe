// A conf field of another JSON type is refused by name before the validator or the plugin reads it.
import { expect, it } from 'vitest';
import { validateResource } from '../../resources/validate.js';

const strategy = (conf: unknown) => ({
  type: 'MeshLoadBalancingStrategy',
  mesh: 'default',
  name: 'balancing',
  spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: conf }] },
});

it('refuses a ring size given as text and a null affinity tag, naming each', () => {
  const conf = { loadBalancer: { type: 'RingHash', ringHash: { minRingSize: 'big' } }, localityAwareness: { localZone: { affinityTags: [null] } } };
  expect(() => validateResource(strategy(conf))).toThrow(
    expect.objectContaining({
      violations: [
        { field: 'spec.to[0].default.loadBalancer.ringHash.minRingSize', message: 'in body must be of type integer: "string"' },
        { field: 'spec.to[0].default.localityAwareness.localZone.affinityTags[0]', message: 'in body must be of type object: "null"' },
      ],
    }),
  );
});

it('reads a null cookie path as absent, as Go decodes it', () => {
  const hashPolicies = [{ type: 'Cookie', cookie: { name: 'session', path: null } }];
  expect(validateResource(strategy({ hashPolicies })).spec).toEqual(strategy({ hashPolicies: [{ type: 'Cookie', cookie: { name: 'session' } }] }).spec);
});

it('refuses an empty hash policy name or key, which Kuma takes and Envoy refuses, naming the Envoy field', () => {
  const hashPolicies = [
    { type: 'QueryParameter', queryParameter: { name: '' } },
    { type: 'Header', header: { name: '' } },
  ];
  expect(() => validateResource(strategy({ hashPolicies }))).toThrow(
    expect.objectContaining({
      violations: [
        {
          field: 'spec.to[0].default.hashPolicies[0].queryParameter.name',
          message: "must be servable: Envoy's RouteAction.HashPolicy.QueryParameter.name must be at least 1 character(s) long (string.min_len), got 0",
        },
        {
          field: 'spec.to[0].default.hashPolicies[1].header.name',
          message: "must be servable: Envoy's RouteAction.HashPolicy.Header.header_name must be at least 1 character(s) long (string.min_len), got 0",
        },
      ],
    }),
  );
});

it('refuses a failover threshold so small that Envoy could not be sent its overprovisioning factor', () => {
  const conf = (percentage: string) => ({ localityAwareness: { crossZone: { failoverThreshold: { percentage } } } });
  expect(() => validateResource(strategy(conf('0.000001')))).toThrow(
    expect.objectContaining({
      violations: [
        {
          field: 'spec.to[0].default.localityAwareness.crossZone.failoverThreshold.percentage',
          message: "must be servable: Envoy's ClusterLoadAssignment.Policy.overprovisioning_factor (100 / percentage, times 100) must be at most 4294967295 (a uint32)",
        },
      ],
    }),
  );
  expect(() => validateResource(strategy(conf('0.01')))).not.toThrow();
});
