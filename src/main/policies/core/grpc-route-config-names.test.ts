import { describe, expect, it } from 'vitest';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { nameRouteConfigsAfterHttpFilters } from './grpc-route-config-names.js';
import { insertHttpFiltersBeforeRouter } from './listener-filters.js';
import { twoVersionMesh } from './testing/two-version-mesh.js';

const origin = { type: 'MeshTimeout', mesh: 'default', name: 'timeout-echo', item: 'spec.to[0]' } as const;
const fault = (percentage: number): ProtoJson => ({
  name: 'envoy.filters.http.fault.0',
  typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault', abort: { http_status: 500, percentage: { numerator: percentage } } },
});

/** The echo client's resources with `filters` before its API listener's router, once named; its route config's name and what refers to it. */
function namedWith(filters: readonly ProtoJson[]) {
  const { resources } = twoVersionMesh(1, 2);
  resources.put(ROUTE_TYPE_URL, 'echo', resources.get(ROUTE_TYPE_URL, 'echo')!, [{ path: 'virtual_hosts[0].routes[0].route.timeout', origins: [origin] }]);
  const listener = resources.get(LISTENER_TYPE_URL, 'echo')!;
  const { hcm } = insertHttpFiltersBeforeRouter((listener.api_listener as ProtoJson).api_listener as ProtoJson, filters);
  resources.put(LISTENER_TYPE_URL, 'echo', { ...listener, api_listener: { api_listener: hcm } });
  nameRouteConfigsAfterHttpFilters(resources);
  const named = (((resources.get(LISTENER_TYPE_URL, 'echo')!.api_listener as ProtoJson).api_listener as ProtoJson).rds as ProtoJson).route_config_name as string;
  return { named, routeNames: resources.list(ROUTE_TYPE_URL).map(({ name, resource }) => [name, resource.name]), attributed: resources.attributions().map(({ resource }) => resource) };
}

describe("a gRPC client's route configuration, named after its listener's HTTP filters", () => {
  it('keeps the plain name with the router alone, and takes a new name with each other set of filters', () => {
    expect(namedWith([])).toEqual({ named: 'echo', routeNames: [['echo', 'echo']], attributed: ['echo'] });
    const thirty = namedWith([fault(30)]);
    expect(thirty.named).toMatch(/^echo:filters-[0-9a-f]{16}$/);
    // The listener, the resource's name and the fields policies set in it all move to the new name.
    expect(thirty).toEqual({ named: thirty.named, routeNames: [[thirty.named, thirty.named]], attributed: [thirty.named] });
    expect(namedWith([fault(30)]).named).toBe(thirty.named);
    expect(namedWith([fault(50)]).named).not.toBe(thirty.named);
  });
});
