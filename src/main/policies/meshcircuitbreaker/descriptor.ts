import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshCircuitBreaker type descriptor (pkg/plugins/policies/meshcircuitbreaker/api/v1alpha1) and where its targetRefs may point. */
export const meshCircuitBreakerDescriptor: PolicyDescriptor = {
  type: 'MeshCircuitBreaker',
  order: 1300,
  path: 'meshcircuitbreakers',
  singularDisplayName: 'Mesh Circuit Breaker',
  pluralDisplayName: 'Mesh Circuit Breakers',
  shortName: 'mcb',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshGateway', 'MeshServiceSubset', 'Dataplane'],
  toKinds: ['Mesh', 'MeshService', 'MeshExternalService', 'MeshMultiZoneService'],
  fromKinds: ['Mesh'],
  hasRules: true,
  fromAsRules: true,
  sections: { requireOneOf: 'from, to or rules', rulesExclude: 'to and from' },
};
