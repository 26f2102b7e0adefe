import type { PolicyPlugin } from '../core/plugin.js';
import type { MeshHTTPRouteConf } from './api.js';
import { meshHTTPRouteDescriptor } from './descriptor.js';
import { applyMeshHTTPRouteToEnvoy } from './envoy.js';
import { applyMeshHTTPRouteToGrpc } from './grpc.js';
import { meshHTTPRouteSpecShape } from './spec-shape.js';
import { validateMeshHTTPRoute } from './validate.js';

/** MeshHTTPRoute: HTTP routing by path, method, headers and query, with splits and filters (Kuma order 100: first). */
export const meshHTTPRoutePlugin: PolicyPlugin<MeshHTTPRouteConf> = {
  descriptor: meshHTTPRouteDescriptor,
  specShape: meshHTTPRouteSpecShape,
  validate: validateMeshHTTPRoute,
  contextReads: { envoy: { parts: ['mesh', 'protocols'] }, grpc: { parts: ['mesh', 'protocols'] } },
  applyEnvoy: applyMeshHTTPRouteToEnvoy,
  applyGrpc: applyMeshHTTPRouteToGrpc,
};
