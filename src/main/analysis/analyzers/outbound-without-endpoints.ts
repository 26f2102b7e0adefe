// MD0030: a Dataplane has an outbound to a service no Dataplane of the mesh serves: its proxy gets a
// cluster without endpoints, and every call fails with "no healthy upstream".
import { SERVICE_TAG } from '../../../shared/resources.js';
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';

export const outboundWithoutEndpoints: Analyzer = {
  code: 'MD0030',
  severity: 'warning',
  title: 'An outbound to a service that no Dataplane serves: its calls fail with "no healthy upstream"',
  analyze(context) {
    const mesh = context.mesh.meta.name;
    const groups = new FindingGroups();
    for (const dataplane of context.dataplanesByName.values()) {
      (dataplane.spec.networking.outbound ?? []).forEach((outbound, index) => {
        const service = outbound.tags?.[SERVICE_TAG];
        if (service === undefined || (context.endpointsByService.get(service)?.length ?? 0) > 0) return;
        groups.add(`${dataplane.meta.name}/${index}`, proxyIdOf(context, dataplane.meta.name), () => ({
          code: outboundWithoutEndpoints.code,
          severity: outboundWithoutEndpoints.severity,
          message: `Dataplane ${dataplane.meta.name} has an outbound to ${service}, and no Dataplane in mesh ${mesh} has an inbound tagged kuma.io/service: ${service}: its proxy's cluster has no endpoints, so every call fails with "no healthy upstream"`,
          location: { type: 'Dataplane', mesh, name: dataplane.meta.name, field: `networking.outbound[${index}].tags` },
          related: [],
          fix: `Register a Dataplane serving ${service} (an inbound tagged kuma.io/service: ${service}), or correct the outbound's service name`,
        }));
      });
    }
    return groups.findings();
  },
};
