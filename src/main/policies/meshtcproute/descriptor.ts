import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshTCPRoute type descriptor (pkg/plugins/policies/meshtcproute/api/v1alpha1) and where its targetRefs may point. */
export const meshTCPRouteDescriptor: PolicyDescriptor = {
  type: 'MeshTCPRoute',
  order: 200,
  path: 'meshtcproutes',
  singularDisplayName: 'Mesh TCP Route',
  pluralDisplayName: 'Mesh TCP Routes',
  shortName: 'mtcpr',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset', 'Dataplane', 'MeshGateway'],
  toKinds: ['MeshService', 'MeshExternalService', 'MeshMultiZoneService'],
  hasRules: false,
  fromAsRules: false,
  sections: { toKindsByTopLevel: { MeshGateway: ['Mesh'] } },
};
