// MD0004: the same MeshHTTPRoute match written twice for one destination: only the first is used.
import { proxyIdOf, type Analyzer } from '../analyzer.js';
import { FindingGroups } from '../finding-groups.js';
import { describeMatch, shadowedRoutes } from '../http-route-order.js';

export const duplicateRouteMatch: Analyzer = {
  code: 'MD0004',
  severity: 'warning',
  title: 'A MeshHTTPRoute match repeats an earlier one for the same destination: only the first is used',
  concerns: ['MeshHTTPRoute'],
  analyze(context) {
    const groups = new FindingGroups();
    for (const { order, shadowed, by } of shadowedRoutes(context).filter(({ same }) => same)) {
      const { location } = shadowed;
      groups.add(`${location.name}/${location.field}/${order.destination}`, proxyIdOf(context, order.dataplane.meta.name), () => ({
        code: duplicateRouteMatch.code,
        severity: duplicateRouteMatch.severity,
        message: `${location.type} ${location.name} ${location.field} (${describeMatch(shadowed.written ?? shadowed.route.match)}) repeats ${by.location ? `${by.location.name} ${by.location.field}` : "Kuma's catch-all route"} for traffic to ${order.destination}: Envoy uses the first and never this one`,
        location,
        related: by.location ? [by.location] : [],
        fix: 'Remove one of the two matches, or merge their backendRefs and filters into one rule',
      }));
    }
    return groups.findings();
  },
};
