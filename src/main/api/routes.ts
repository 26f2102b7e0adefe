import type { CachedManager } from '../cache/cached-manager.js';
import type { Settings } from '../config/settings.js';
import type { ResourceManager } from '../manager/interfaces.js';
import type { Metrics } from '../metrics/metrics.js';
import { bootstrapPreviewRoutes, type BootstrapPreviewDependencies } from './bootstrap-preview-routes.js';
import { bootstrapRoutes } from './bootstrap-routes.js';
import { analysisRoutes, type AnalysisDependencies } from './analysis-routes.js';
import { apiIndex } from './control-plane-identity.js';
import { dataplaneOverviewRoutes } from './dataplane-overview.js';
import { demoRoutes, type DemoDependencies } from './demo-routes.js';
import type { EventStream } from './event-stream.js';
import { inspectionRoutes, type InspectionDependencies } from './inspection-routes.js';
import { kumaDpRoutes, type KumaDpDependencies } from './kuma-dp-routes.js';
import { mtlsRoutes, type MtlsDependencies } from './mtls-routes.js';
import { permissionRoutes, type PermissionDependencies } from './permission-routes.js';
import { policyInspectionRoutes, type PolicyInspectionDependencies } from './policy-inspection-routes.js';
import { policyPreviewRoutes, type PolicyPreviewDependencies } from './policy-preview-routes.js';
import { proxyConfigRoutes } from './proxy-config-routes.js';
import { policyWarningsRoutes } from './policy-warnings-routes.js';
import { resourceRoutes, unservedCollectionRoute } from './resource-routes.js';
import { serviceModelRoutes } from '../meshservice/routes.js';
import { ZONE_NAME } from '../resources/computed-labels.js';
import { Router } from './router.js';
import { servicesRoutes } from './services-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { statsRoutes } from './stats-routes.js';
import { storageRoutes, type StorageDependencies } from './storage-routes.js';
import { tokenRoutes, type TokenDependencies } from './token-routes.js';
import { transferRoutes } from './transfer-routes.js';
import { GUI_PATH, redirect, staticFileRoutes, wantsHtml } from './static-files.js';

export interface ApiDependencies
  extends InspectionDependencies,
    PolicyInspectionDependencies,
    PolicyPreviewDependencies,
    BootstrapPreviewDependencies,
    TokenDependencies,
    StorageDependencies,
    KumaDpDependencies,
    MtlsDependencies,
    PermissionDependencies,
    AnalysisDependencies,
    DemoDependencies {
  manager: ResourceManager;
  cachedManager: CachedManager;
  settings: Settings;
  metrics: Metrics;
  eventStream: EventStream;
}

/** Every route of the HTTP API, in one list: Kuma's resource paths first, then meshdesk's own. */
export function createApiRouter(deps: ApiDependencies): Router {
  return new Router([
    {
      method: 'GET',
      path: '/',
      handler: (context) =>
        wantsHtml(context)
          ? redirect(context.response, `${GUI_PATH}/`)
          : { json: apiIndex() },
    },
    ...staticFileRoutes(),
    // Before the resource routes: `dataplanes/_overview` would otherwise read as a Dataplane named `_overview`.
    ...dataplaneOverviewRoutes(deps),
    ...mtlsRoutes(deps),
    ...permissionRoutes(deps),
    ...analysisRoutes(deps),
    ...servicesRoutes(deps),
    ...resourceRoutes(deps.manager, deps.bodyReader),
    ...serviceModelRoutes(deps.manager, ZONE_NAME),
    ...transferRoutes(deps.manager, deps.bodyReader),
    ...settingsRoutes(deps.settings),
    ...bootstrapRoutes(deps),
    ...bootstrapPreviewRoutes(deps),
    ...kumaDpRoutes(deps),
    ...inspectionRoutes(deps),
    ...policyInspectionRoutes(deps),
    ...policyPreviewRoutes(deps),
    ...proxyConfigRoutes(deps),
    ...policyWarningsRoutes(deps),
    ...tokenRoutes(deps),
    ...statsRoutes(deps),
    ...storageRoutes(deps),
    ...demoRoutes(deps),
    {
      method: 'GET',
      path: '/cache',
      handler: () => ({ json: { entries: deps.cachedManager.entries() } }),
    },
    {
      method: 'GET',
      path: '/metrics',
      handler: async () => ({
        text: await deps.metrics.registry.metrics(),
        contentType: deps.metrics.registry.contentType,
      }),
    },
    deps.eventStream.route(),
    unservedCollectionRoute(deps.manager),
  ]);
}
