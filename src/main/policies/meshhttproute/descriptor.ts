import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshHTTPRoute type descriptor (pkg/plugins/policies/meshhttproute/api/v1alpha1) and where its targetRefs may point. */
export const meshHTTPRouteDescriptor: PolicyDescriptor = {
  type: 'MeshHTTPRoute',
  order: 100,
  path: 'meshhttproutes',
  singularDisplayName: 'Mesh HTTP Route',
  pluralDisplayName: 'Mesh HTTP Routes',
  shortName: 'mhttpr',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset', 'Dataplane', 'MeshGateway'],
  toKinds: ['MeshService', 'MeshExternalService', 'MeshMultiZoneService'],
  hasRules: false,
  fromAsRules: false,
  sections: { toKindsByTopLevel: { MeshGateway: ['Mesh'] } },
};
