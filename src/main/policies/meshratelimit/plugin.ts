import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshRateLimitConf } from './api.js';
import { meshRateLimitDescriptor } from './descriptor.js';
import { applyMeshRateLimitToEnvoy } from './envoy.js';
import { applyMeshRateLimitToGrpc } from './grpc.js';
import { meshRateLimitSpecShape } from './spec-shape.js';
import { validateMeshRateLimit } from './validate.js';

export const meshRateLimitPlugin: PolicyPlugin<MeshRateLimitConf> = {
  descriptor: meshRateLimitDescriptor,
  specShape: meshRateLimitSpecShape,
  validate: validateMeshRateLimit,
  contextReads: { envoy: { parts: ['mesh'] }, grpc: { parts: ['mesh'] } },
  applyEnvoy: applyMeshRateLimitToEnvoy,
  applyGrpc: applyMeshRateLimitToGrpc,
};
