import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshCircuitBreakerConf } from './api.js';
import { meshCircuitBreakerDescriptor } from './descriptor.js';
import { applyMeshCircuitBreakerToEnvoy } from './envoy.js';
import { applyMeshCircuitBreakerToGrpc } from './grpc.js';
import { meshCircuitBreakerSpecShape } from './spec-shape.js';
import { validateMeshCircuitBreaker } from './validate.js';

export const meshCircuitBreakerPlugin: PolicyPlugin<MeshCircuitBreakerConf> = {
  descriptor: meshCircuitBreakerDescriptor,
  specShape: meshCircuitBreakerSpecShape,
  validate: validateMeshCircuitBreaker,
  contextReads: { envoy: { parts: ['protocols'] }, grpc: { parts: ['protocols'] } },
  applyEnvoy: applyMeshCircuitBreakerToEnvoy,
  applyGrpc: applyMeshCircuitBreakerToGrpc,
};
