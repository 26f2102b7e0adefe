// MD0004: the same MeshHTTPRoute match written twice for one destination: only the first is used.
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { describeMatch, httpRouteOrders } from '../http-route-order.js';
import { matchCovers } from '../route-coverage.js';

export const duplicateRouteMatch: Analyzer = {
  code: 'MD0004',
  severity: 'warning',
  title: 'A MeshHTTPRoute match repeats an earlier one for the same destination: only the first is used',
  concerns: ['MeshHTTPRoute'],
  analyze(context) {
    const groups = new FindingGroups();
    for (const { dataplane, destination, routes } of httpRouteOrders(context)) {
      routes.forEach(({ route, location, written }, index) => {
        if (!location) return;
        const first = routes.slice(0, index).find((other) => matchCovers(other.route.match, route.match) && matchCovers(route.match, other.route.match));
        if (!first) return;
        const by = first.location;
        groups.add(`${location.name}/${location.field}/${destination}`, proxyIdOf(context, dataplane.meta.name), () => ({
          code: duplicateRouteMatch.code,
          severity: duplicateRouteMatch.severity,
          message: `${location.type} ${location.name} ${location.field} (${describeMatch(written ?? route.match)}) repeats ${by ? `${by.name} ${by.field}` : "Kuma's catch-all route"} for traffic to ${destination}: Envoy uses the first and never this one`,
          location,
          related: by ? [by] : [],
          fix: 'Remove one of the two matches, or merge their backendRefs and filters into one rule',
        }));
      });
    }
    return groups.findings();
  },
};
