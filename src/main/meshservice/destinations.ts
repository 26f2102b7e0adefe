// The service model's destinations of one mesh as the MeshContext carries them (MeshService
// outbounds read them: xds/generate/meshservice/), and the part of them that configuration can
// depend on, which is all the MeshContext's hash covers.
import type { Resource } from '../../shared/resources.js';

export interface MeshDestinations {
  meshServices: readonly Resource<'MeshService'>[];
  meshExternalServices: readonly Resource<'MeshExternalService'>[];
  meshMultiZoneServices: readonly Resource<'MeshMultiZoneService'>[];
}

export type DestinationResource = Resource<'MeshService'> | Resource<'MeshExternalService'> | Resource<'MeshMultiZoneService'>;

export const NO_DESTINATIONS: MeshDestinations = Object.freeze({ meshServices: [], meshExternalServices: [], meshMultiZoneServices: [] });

/**
 * What a proxy's configuration can read of a destination: its name, labels, creation time (a
 * `backendRef` by labels reaches the oldest match), spec (ports, selector, identities, state), VIPs,
 * hostnames and TLS readiness. Not the counts of proxies
 * (`status.dataplaneProxies`), nor the HostnameGenerators' conditions, nor version and times: the
 * status updater rewrites those as proxies come and go, and that must not regenerate any proxy.
 */
export function configurationInput(resource: DestinationResource): unknown {
  const status = (resource.status ?? {}) as Record<string, unknown> & { addresses?: { hostname: string }[] };
  return {
    type: resource.type,
    name: resource.meta.name,
    labels: resource.meta.labels,
    creationTime: resource.meta.creationTime,
    spec: resource.spec,
    vips: status.vips,
    vip: status.vip,
    hostnames: status.addresses?.map(({ hostname }) => hostname),
    tls: status.tls,
    meshServices: status.meshServices,
  };
}
