import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshRateLimit type descriptor (pkg/plugins/policies/meshratelimit/api/v1alpha1) and where its targetRefs may point. */
export const meshRateLimitDescriptor: PolicyDescriptor = {
  type: 'MeshRateLimit',
  order: 900,
  path: 'meshratelimits',
  singularDisplayName: 'Mesh Rate Limit',
  pluralDisplayName: 'Mesh Rate Limits',
  shortName: 'mrl',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset', 'Dataplane', 'MeshGateway', 'MeshHTTPRoute'],
  toKinds: ['Mesh'],
  fromKinds: ['Mesh'],
  hasRules: true,
  fromAsRules: true,
  sections: { rulesExclude: 'to and from', gatewayScope: { noRulesWithGateways: true }, ruleMatches: 'typed' },
};
