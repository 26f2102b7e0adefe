import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshTrafficPermission type descriptor (pkg/plugins/policies/meshtrafficpermission/api/v1alpha1) and where its targetRefs may point. */
export const meshTrafficPermissionDescriptor: PolicyDescriptor = {
  type: 'MeshTrafficPermission',
  order: 1100,
  path: 'meshtrafficpermissions',
  singularDisplayName: 'Mesh Traffic Permission',
  pluralDisplayName: 'Mesh Traffic Permissions',
  shortName: 'mtp',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset', 'Dataplane'],
  fromKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset'],
  hasRules: true,
  fromAsRules: false,
  inboundRulesApart: true,
  sections: { requireOneOf: 'from or rules', rulesExclude: 'from' },
};
