import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshHealthCheck type descriptor (pkg/plugins/policies/meshhealthcheck/api/v1alpha1) and where its targetRefs may point. */
export const meshHealthCheckDescriptor: PolicyDescriptor = {
  type: 'MeshHealthCheck',
  order: 1200,
  path: 'meshhealthchecks',
  singularDisplayName: 'Mesh Health Check',
  pluralDisplayName: 'Mesh Health Checks',
  shortName: 'mhc',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshGateway', 'MeshServiceSubset', 'Dataplane'],
  toKinds: ['Mesh', 'MeshService', 'MeshExternalService', 'MeshMultiZoneService'],
  hasRules: false,
  fromAsRules: false,
};
