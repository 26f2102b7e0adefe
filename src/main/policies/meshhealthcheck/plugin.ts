import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshHealthCheckConf } from './api.js';
import { meshHealthCheckDescriptor } from './descriptor.js';
import { applyMeshHealthCheckToEnvoy } from './envoy.js';
import { applyMeshHealthCheckToGrpc } from './grpc.js';
import { meshHealthCheckSpecShape } from './spec-shape.js';
import { validateMeshHealthCheck } from './validate.js';

/** MeshHealthCheck: active health checks on the clusters of outbound services. */
export const meshHealthCheckPlugin: PolicyPlugin<MeshHealthCheckConf> = {
  descriptor: meshHealthCheckDescriptor,
  specShape: meshHealthCheckSpecShape,
  validate: validateMeshHealthCheck,
  contextReads: { envoy: { parts: ['protocols'] }, grpc: { parts: ['protocols'] } },
  applyEnvoy: applyMeshHealthCheckToEnvoy,
  applyGrpc: applyMeshHealthCheckToGrpc,
};
