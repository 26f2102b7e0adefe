// MD0005: a route rule whose backendRefs all have weight 0 sends nowhere; Kuma leaves its route out,
// so its requests go to the next route that matches them (often the destination itself).
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { httpRouteOrders } from '../http-route-order.js';

export const zeroWeightRoute: Analyzer = {
  code: 'MD0005',
  severity: 'warning',
  title: 'A MeshHTTPRoute rule whose backendRefs weigh 0 in all: Kuma leaves it out and its traffic goes elsewhere',
  concerns: ['MeshHTTPRoute'],
  analyze(context) {
    const groups = new FindingGroups();
    for (const { dataplane, destination, routes } of httpRouteOrders(context)) {
      for (const { route, location } of routes) {
        if (!location || route.backendRefs.some((ref) => (ref.weight ?? 1) > 0)) continue;
        const rule = location.field!.replace(/\.matches\[\d+\]$/, '');
        const count = route.backendRefs.length;
        groups.add(`${location.name}/${rule}/${destination}`, proxyIdOf(context, dataplane.meta.name), () => ({
          code: zeroWeightRoute.code,
          severity: zeroWeightRoute.severity,
          message: `${location.type} ${location.name} ${rule} sends traffic to ${destination} nowhere: its ${count === 1 ? 'backendRef has' : `${count} backendRefs have`} weight 0, so Kuma leaves the route out and its requests go to the next route that matches them`,
          location: { ...location, field: `${rule}.default.backendRefs` },
          related: [],
          fix: 'Give at least one backendRef a weight above 0 (an omitted weight is 1), or remove the rule',
        }));
      }
    }
    return groups.findings();
  },
};
