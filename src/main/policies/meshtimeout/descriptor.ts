import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshTimeout type descriptor (pkg/plugins/policies/meshtimeout/api/v1alpha1) and where its targetRefs may point. */
export const meshTimeoutDescriptor: PolicyDescriptor = {
  type: 'MeshTimeout',
  order: 1000,
  path: 'meshtimeouts',
  singularDisplayName: 'Mesh Timeout',
  pluralDisplayName: 'Mesh Timeouts',
  shortName: 'mt',
  topLevelKinds: ['Mesh', 'MeshSubset', 'Dataplane', 'MeshService', 'MeshServiceSubset', 'MeshGateway', 'MeshHTTPRoute'],
  toKinds: ['Mesh', 'MeshService', 'MeshExternalService', 'MeshMultiZoneService', 'MeshHTTPRoute'],
  fromKinds: ['Mesh'],
  hasRules: true,
  fromAsRules: true,
  sections: {
    requireOneOf: 'from, to or rules',
    rulesExclude: 'to and from',
    toKindsByTopLevel: { MeshHTTPRoute: ['Mesh', 'MeshExternalService'], MeshGateway: ['Mesh', 'MeshExternalService'] },
    noFromUnder: ['MeshHTTPRoute', 'MeshGateway'],
    ruleMatches: 'typed',
  },
};
