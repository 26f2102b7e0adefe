import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshTCPRouteConf } from './api.js';
import { meshTCPRouteDescriptor } from './descriptor.js';
import { applyMeshTCPRouteToEnvoy } from './envoy.js';
import { applyMeshTCPRouteToGrpc } from './grpc.js';
import { meshTCPRouteSpecShape } from './spec-shape.js';
import { validateMeshTCPRoute } from './validate.js';

/** MeshTCPRoute: connections to a destination go to other services or subsets, by weight (Kuma order 200). */
export const meshTCPRoutePlugin: PolicyPlugin<MeshTCPRouteConf> = {
  descriptor: meshTCPRouteDescriptor,
  specShape: meshTCPRouteSpecShape,
  validate: validateMeshTCPRoute,
  contextReads: { envoy: { parts: ['mesh', 'protocols'] }, grpc: { parts: ['mesh', 'protocols'] } },
  applyEnvoy: applyMeshTCPRouteToEnvoy,
  applyGrpc: applyMeshTCPRouteToGrpc,
};
