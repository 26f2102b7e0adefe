import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshAccessLog type descriptor (pkg/plugins/policies/meshaccesslog/api/v1alpha1) and where its targetRefs may point. */
export const meshAccessLogDescriptor: PolicyDescriptor = {
  type: 'MeshAccessLog',
  order: 600,
  path: 'meshaccesslogs',
  singularDisplayName: 'Mesh Access Log',
  pluralDisplayName: 'Mesh Access Logs',
  shortName: 'mal',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshGateway', 'MeshServiceSubset', 'Dataplane'],
  toKinds: ['Mesh', 'MeshService', 'MeshExternalService', 'MeshMultiZoneService', 'MeshHTTPRoute'],
  fromKinds: ['Mesh'],
  hasRules: true,
  fromAsRules: true,
  sections: {
    requireOneOf: 'from, to or rules',
    rulesExclude: 'to and from',
    toKindsByTopLevel: { MeshGateway: ['Mesh'] },
    ruleMatches: 'match',
  },
};
