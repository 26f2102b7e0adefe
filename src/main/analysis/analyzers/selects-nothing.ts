// MD0001: a policy's targetRef, `to` item or route backendRef selects nothing in the mesh: the
// policy (or that part of it) does nothing. The same judgement as the PUT answer's warning
// (policies/warnings/selects-nothing.ts), with the field and a fix.
import type { Finding } from '../../../shared/analysis-types.js';
import { isInitialPolicy } from '../../manager/initial-policies.js';
import { emptyReferences } from '../../policies/warnings/selects-nothing.js';
import type { Analyzer } from '../analyzer.js';

export const selectsNothing: Analyzer = {
  code: 'MD0001',
  severity: 'warning',
  title: "A policy's targetRef, to item or backendRef selects nothing in the mesh: that part does nothing",
  analyze(context) {
    const mesh = context.mesh.meta.name;
    // Kuma's initial policies include the gateways' ones, which select nothing in a mesh without gateways, as meant.
    const written = context.policies.filter((policy) => !isInitialPolicy(policy.type, policy.meta.name, mesh));
    return written.flatMap((policy) =>
      emptyReferences(policy, context).map(
        ({ field, message }): Finding => ({
          code: selectsNothing.code,
          severity: selectsNothing.severity,
          message: `${policy.type} ${policy.meta.name} ${message}`,
          location: { type: policy.type, mesh, name: policy.meta.name, field },
          related: [],
          proxies: [],
          fix:
            field === 'spec.targetRef'
              ? 'Aim the policy at Dataplanes that exist (check the name, tags and proxyTypes), or connect the proxies it is meant for'
              : 'Check the service name and tags against the mesh’s Dataplanes (the Proxies view lists their services), or register the Dataplane that provides it',
        }),
      ),
    );
  },
};
