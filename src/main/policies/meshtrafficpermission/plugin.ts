import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshTrafficPermissionConf } from './api.js';
import { meshTrafficPermissionDescriptor } from './descriptor.js';
import { applyMeshTrafficPermissionToEnvoy } from './envoy.js';
import { applyMeshTrafficPermissionToGrpc } from './grpc.js';
import { meshTrafficPermissionSpecShape } from './spec-shape.js';
import { validateMeshTrafficPermission } from './validate.js';

export const meshTrafficPermissionPlugin: PolicyPlugin<MeshTrafficPermissionConf> = {
  descriptor: meshTrafficPermissionDescriptor,
  specShape: meshTrafficPermissionSpecShape,
  validate: validateMeshTrafficPermission,
  contextReads: { envoy: { parts: ['mesh'] }, grpc: { parts: ['mesh'] } },
  applyEnvoy: applyMeshTrafficPermissionToEnvoy,
  applyGrpc: applyMeshTrafficPermissionToGrpc,
};
