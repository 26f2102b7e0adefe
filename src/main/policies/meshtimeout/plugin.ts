import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshTimeoutPolicyConf } from './api.js';
import { meshTimeoutDescriptor } from './descriptor.js';
import { applyMeshTimeoutToEnvoy } from './envoy.js';
import { applyMeshTimeoutToGrpc } from './grpc.js';
import { meshTimeoutSpecShape } from './spec-shape.js';
import { validateMeshTimeout } from './validate.js';

export const meshTimeoutPlugin: PolicyPlugin<MeshTimeoutPolicyConf> = {
  descriptor: meshTimeoutDescriptor,
  specShape: meshTimeoutSpecShape,
  validate: validateMeshTimeout,
  contextReads: { envoy: { parts: ['mesh', 'protocols'] }, grpc: { parts: ['mesh', 'protocols'] } },
  applyEnvoy: applyMeshTimeoutToEnvoy,
  applyGrpc: applyMeshTimeoutToGrpc,
};
