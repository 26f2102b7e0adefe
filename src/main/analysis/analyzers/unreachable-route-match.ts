// MD0003: a MeshHTTPRoute match that can never be chosen, because a route Envoy tries before it
// (in Kuma's order: Exact, then longer prefixes, then a path before none, then more headers) accepts
// every request it accepts.
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { describeMatch, httpRouteOrders } from '../http-route-order.js';
import { matchCovers } from '../route-coverage.js';

export const unreachableRouteMatch: Analyzer = {
  code: 'MD0003',
  severity: 'warning',
  title: 'A MeshHTTPRoute match can never be chosen: a route tried before it takes all of its requests',
  concerns: ['MeshHTTPRoute'],
  analyze(context) {
    const groups = new FindingGroups();
    for (const { dataplane, destination, routes } of httpRouteOrders(context)) {
      routes.forEach(({ route, location, written }, index) => {
        if (!location) return;
        const earlier = routes.slice(0, index).find((other) => matchCovers(other.route.match, route.match));
        // The same match written twice is MD0004's.
        if (!earlier || matchCovers(route.match, earlier.route.match)) return;
        const by = earlier.location;
        groups.add(`${location.name}/${location.field}/${destination}`, proxyIdOf(context, dataplane.meta.name), () => ({
          code: unreachableRouteMatch.code,
          severity: unreachableRouteMatch.severity,
          message:
            `${location.type} ${location.name} ${location.field} (${describeMatch(written ?? route.match)}) can never match for traffic to ${destination}: ` +
            `${by ? `${by.name} ${by.field}` : "Kuma's catch-all route"} (${describeMatch(earlier.written ?? earlier.route.match)}) comes first in Kuma's order and matches every request it matches`,
          location,
          related: by ? [by] : [],
          fix: `Make the earlier match narrower (a longer path, or the same headers), or give this one a path: Kuma orders Exact before PathPrefix, longer prefixes first, a path before none, then more headers first`,
        }));
      });
    }
    return groups.findings();
  },
};
