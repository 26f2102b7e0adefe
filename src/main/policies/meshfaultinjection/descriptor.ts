import type { PolicyDescriptor } from '../core/plugin.js';

/** Kuma's MeshFaultInjection type descriptor (pkg/plugins/policies/meshfaultinjection/api/v1alpha1) and where its targetRefs may point. */
export const meshFaultInjectionDescriptor: PolicyDescriptor = {
  type: 'MeshFaultInjection',
  order: 800,
  path: 'meshfaultinjections',
  singularDisplayName: 'Mesh Fault Injection',
  pluralDisplayName: 'Mesh Fault Injections',
  shortName: 'mfi',
  topLevelKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset', 'Dataplane', 'MeshGateway'],
  toKinds: ['Mesh'],
  fromKinds: ['Mesh', 'MeshSubset', 'MeshService', 'MeshServiceSubset'],
  hasRules: true,
  fromAsRules: false,
  sections: { rulesExclude: 'from', gatewayScope: { noRulesWithGateways: false }, ruleMatches: 'match' },
};
