// MD0003: a MeshHTTPRoute match that can never be chosen, because a route Envoy tries before it
// (in Kuma's order: Exact, then longer prefixes, then a path before none, then more headers) accepts
// every request it accepts.
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { describeMatch, shadowedRoutes } from '../http-route-order.js';

export const unreachableRouteMatch: Analyzer = {
  code: 'MD0003',
  severity: 'warning',
  title: 'A MeshHTTPRoute match can never be chosen: a route tried before it takes all of its requests',
  concerns: ['MeshHTTPRoute'],
  analyze(context) {
    const groups = new FindingGroups();
    // The same match written twice is MD0004's.
    for (const { order, shadowed, by } of shadowedRoutes(context).filter(({ same }) => !same)) {
      const { location } = shadowed;
      groups.add(`${location.name}/${location.field}/${order.destination}`, proxyIdOf(context, order.dataplane.meta.name), () => ({
        code: unreachableRouteMatch.code,
        severity: unreachableRouteMatch.severity,
        message:
          `${location.type} ${location.name} ${location.field} (${describeMatch(shadowed.written ?? shadowed.route.match)}) can never match for traffic to ${order.destination}: ` +
          `${by.location ? `${by.location.name} ${by.location.field}` : "Kuma's catch-all route"} (${describeMatch(by.written ?? by.route.match)}) comes first in Kuma's order and matches every request it matches`,
        location,
        related: by.location ? [by.location] : [],
        fix: `Make the earlier match narrower (a longer path, or the same headers), or give this one a path: Kuma orders Exact before PathPrefix, longer prefixes first, a path before none, then more headers first`,
      }));
    }
    return groups.findings();
  },
};
