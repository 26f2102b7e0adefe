import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshAccessLogConf } from './api.js';
import { meshAccessLogDescriptor } from './descriptor.js';
import { applyMeshAccessLogToEnvoy } from './envoy.js';
import { applyMeshAccessLogToGrpc } from './grpc.js';
import { meshAccessLogSpecShape } from './spec-shape.js';
import { validateMeshAccessLog } from './validate.js';

export const meshAccessLogPlugin: PolicyPlugin<MeshAccessLogConf> = {
  descriptor: meshAccessLogDescriptor,
  specShape: meshAccessLogSpecShape,
  validate: validateMeshAccessLog,
  contextReads: { envoy: { parts: [] }, grpc: { parts: [] } },
  applyEnvoy: applyMeshAccessLogToEnvoy,
  applyGrpc: applyMeshAccessLogToGrpc,
};
