import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshRetry type descriptor (pkg/plugins/policies/meshretry/api/v1alpha1) and where its targetRefs may point. */
export const meshRetryDescriptor: PolicyDescriptor = {
  type: 'MeshRetry',
  order: 1400,
  path: 'meshretries',
  singularDisplayName: 'Mesh Retry',
  pluralDisplayName: 'Mesh Retries',
  shortName: 'mr',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset', 'Dataplane', 'MeshGateway', 'MeshHTTPRoute'],
  toKinds: ['Mesh', 'MeshService', 'MeshExternalService', 'MeshMultiZoneService', 'MeshHTTPRoute'],
  hasRules: false,
  fromAsRules: false,
  sections: {
    toKindsByTopLevel: { MeshHTTPRoute: ['Mesh', 'MeshExternalService'], MeshGateway: ['Mesh', 'MeshExternalService'] },
  },
};
