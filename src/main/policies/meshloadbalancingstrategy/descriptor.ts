import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshLoadBalancingStrategy type descriptor (pkg/plugins/policies/meshloadbalancingstrategy/api/v1alpha1) and where its targetRefs may point. */
export const meshLoadBalancingStrategyDescriptor: PolicyDescriptor = {
  type: 'MeshLoadBalancingStrategy',
  order: 400,
  path: 'meshloadbalancingstrategies',
  singularDisplayName: 'Mesh Load Balancing Strategy',
  pluralDisplayName: 'Mesh Load Balancing Strategies',
  shortName: 'mlbs',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshGateway', 'MeshServiceSubset', 'Dataplane'],
  toKinds: ['Mesh', 'MeshService', 'MeshMultiZoneService', 'MeshHTTPRoute'],
  hasRules: false,
  fromAsRules: false,
  sections: { toKindsByTopLevel: { MeshGateway: ['Mesh', 'MeshService', 'MeshMultiZoneService'] } },
};
