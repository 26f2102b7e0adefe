import { SERVICE_TAG } from '../../../shared/resources.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { edsCluster } from './clusters.js';
import { clusterLoadAssignment } from './endpoints.js';
import { httpConnectionManager } from './filters.js';
import type { ResourceGenerator } from './generator.js';
import { ResourceSet } from './resources.js';
import { routeToCluster } from './routes.js';

/**
 * What gRPC's own xDS client needs for each outbound service, all four named after the service
 * (the client dials `xds:///<service>` and asks for the Listener of that name): an API listener
 * whose HttpConnectionManager fetches its routes over ADS, the RouteConfiguration, an EDS
 * cluster and its endpoints. gRPC accepts only this shape (gRFC A27): RDS and EDS over ADS,
 * router filter last, cluster type EDS with ROUND_ROBIN, a weighted locality with IP addresses.
 */
export const proxylessGrpcGenerator: ResourceGenerator = {
  name: 'proxyless-grpc',
  generate(context, proxy) {
    const resources = new ResourceSet();
    for (const outbound of proxy.dataplane.spec.networking.outbound ?? []) {
      const service = outbound.tags[SERVICE_TAG]!; // validation requires it
      const endpoints = context.endpointsByService.get(service) ?? [];
      resources
        .add(CLUSTER_TYPE_URL, service, edsCluster(service))
        .add(ENDPOINT_TYPE_URL, service, clusterLoadAssignment(service, endpoints, context.mesh.meta.name))
        .add(LISTENER_TYPE_URL, service, {
          name: service,
          api_listener: { api_listener: httpConnectionManager(service, { rdsRouteName: service }) },
        })
        .add(ROUTE_TYPE_URL, service, routeToCluster(service, service, service));
    }
    return resources.toResources();
  },
};
