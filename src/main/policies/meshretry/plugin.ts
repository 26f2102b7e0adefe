import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshRetryConf } from './api.js';
import { meshRetryDescriptor } from './descriptor.js';
import { applyMeshRetryToEnvoy } from './envoy.js';
import { applyMeshRetryToGrpc } from './grpc.js';
import { meshRetrySpecShape } from './spec-shape.js';
import { validateMeshRetry } from './validate.js';

export const meshRetryPlugin: PolicyPlugin<MeshRetryConf> = {
  descriptor: meshRetryDescriptor,
  specShape: meshRetrySpecShape,
  validate: validateMeshRetry,
  contextReads: { envoy: { parts: ['protocols'] }, grpc: { parts: ['protocols'] } },
  applyEnvoy: applyMeshRetryToEnvoy,
  applyGrpc: applyMeshRetryToGrpc,
};
