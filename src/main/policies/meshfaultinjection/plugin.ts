import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshFaultInjectionConf } from './api.js';
import { meshFaultInjectionDescriptor } from './descriptor.js';
import { applyMeshFaultInjectionToEnvoy } from './envoy.js';
import { applyMeshFaultInjectionToGrpc } from './grpc.js';
import { meshFaultInjectionSpecShape } from './spec-shape.js';
import { validateMeshFaultInjection } from './validate.js';

export const meshFaultInjectionPlugin: PolicyPlugin<MeshFaultInjectionConf> = {
  descriptor: meshFaultInjectionDescriptor,
  specShape: meshFaultInjectionSpecShape,
  validate: validateMeshFaultInjection,
  contextReads: { envoy: { parts: [], policyTypes: ['MeshFaultInjection'] }, grpc: { parts: ['endpoints', 'dataplanes'], policyTypes: ['MeshFaultInjection'] } },
  applyEnvoy: applyMeshFaultInjectionToEnvoy,
  applyGrpc: applyMeshFaultInjectionToGrpc,
};
