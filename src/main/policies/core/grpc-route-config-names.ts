// grpc-js-xds 1.14 stores a changed Listener but builds a new configuration from it only when the
// Listener names another RouteConfiguration, or once an RDS, CDS or EDS update follows
// (XdsDependencyManager's listener watcher, build/src/xds-dependency-manager.js): changed HTTP
// filters (MeshFaultInjection's faults) would wait for an unrelated update. C-core applies every
// Listener change. So a gRPC client's RouteConfiguration is named after its listener's HTTP
// filters: a change of filters is a change of name, which both clients follow at once.
import { createHash } from 'node:crypto';
import { ROUTER_FILTER } from '../../xds/generate/extension-types.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { EnvoyResources } from './envoy-resources.js';

/**
 * Renames the RouteConfiguration of each API listener with HTTP filters besides the router to
 * `<name>:filters-<16 hex of their SHA-256>`, in the listener and in the RouteConfiguration; a
 * listener with the router alone keeps the generator's name.
 */
export function nameRouteConfigsAfterHttpFilters(resources: EnvoyResources): void {
  for (const { name, resource: listener } of resources.list(LISTENER_TYPE_URL)) {
    const hcm = (listener.api_listener as ProtoJson | undefined)?.api_listener as ProtoJson | undefined;
    const rds = hcm?.rds as ProtoJson | undefined;
    if (hcm === undefined || rds === undefined) continue;
    const filters = ((hcm.http_filters ?? []) as ProtoJson[]).filter((filter) => filter.name !== ROUTER_FILTER);
    const current = rds.route_config_name as string;
    const routeConfig = resources.get(ROUTE_TYPE_URL, current);
    if (filters.length === 0 || routeConfig === undefined) continue;
    const renamed = `${current}:filters-${createHash('sha256').update(JSON.stringify(filters)).digest('hex').slice(0, 16)}`;
    resources.rename(ROUTE_TYPE_URL, current, renamed, { ...routeConfig, name: renamed });
    resources.put(LISTENER_TYPE_URL, name, { ...listener, api_listener: { api_listener: { ...hcm, rds: { ...rds, route_config_name: renamed } } } });
  }
}
