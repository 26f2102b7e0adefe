import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshLoadBalancingStrategyConf } from './api.js';
import { meshLoadBalancingStrategyDescriptor } from './descriptor.js';
import { applyMeshLoadBalancingStrategyToEnvoy } from './envoy.js';
import { applyMeshLoadBalancingStrategyToGrpc } from './grpc.js';
import { meshLoadBalancingStrategySpecShape } from './spec-shape.js';
import { validateMeshLoadBalancingStrategy } from './validate.js';

/** MeshLoadBalancingStrategy: the balancer, hash policies and locality awareness of outbound services. */
export const meshLoadBalancingStrategyPlugin: PolicyPlugin<MeshLoadBalancingStrategyConf> = {
  descriptor: meshLoadBalancingStrategyDescriptor,
  specShape: meshLoadBalancingStrategySpecShape,
  validate: validateMeshLoadBalancingStrategy,
  contextReads: { envoy: { parts: ['mesh'] }, grpc: { parts: ['mesh'] } },
  applyEnvoy: applyMeshLoadBalancingStrategyToEnvoy,
  applyGrpc: applyMeshLoadBalancingStrategyToGrpc,
};
