import { SERVICE_TAG } from '../../../shared/resources.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PluginInput, UnappliedField } from '../core/plugin.js';
import { outboundServices } from '../core/outbound-services.js';
import { RouteClusters, Rerouting } from '../core/route-clusters.js';
import { ruleFor } from '../core/rules.js';
import type { FilterType, MeshHTTPRouteConf } from './api.js';
import { destinationRoutes, routeActionFields, withRoutes, type DestinationRoute } from './destination-routes.js';
import type { PreparedRoute } from './prepare-routes.js';

/** Why gRPC's xDS client (gRFC A28: route matching and weighted clusters only) cannot apply a filter. */
const FILTER_REASONS: Record<FilterType, string> = {
  RequestHeaderModifier: 'proxyless gRPC does not modify request headers (gRFC A28 routes match and pick clusters only)',
  ResponseHeaderModifier: 'proxyless gRPC does not modify response headers (gRFC A28 routes match and pick clusters only)',
  RequestRedirect: 'proxyless gRPC does not redirect (a redirect route action is refused by gRPC clients): the route sends to its backends instead',
  URLRewrite: 'proxyless gRPC does not rewrite hosts or paths (gRFC A28)',
  RequestMirror: 'proxyless gRPC does not mirror requests (gRFC A28)',
};

/**
 * MeshHTTPRoute for proxyless gRPC: the destination's RouteConfiguration (fetched over RDS, named
 * after the service) gets the rule's routes in the form gRFC A28 reads (path, prefix and regex
 * matches on `/package.Service/Method`, header matches, weighted clusters), with split clusters
 * and their endpoints. Filters, which gRPC does not do, are reported, never silently dropped.
 */
export function applyMeshHTTPRouteToGrpc({ proxy, context, rules, resources, unapplied }: PluginInput<MeshHTTPRouteConf>): void {
  const clusters = new RouteClusters(context, 'grpc');
  const rerouting = new Rerouting();
  const reported = new Set<string>();
  const report = (field: UnappliedField) => {
    const key = `${field.policy.name}\n${field.field}`;
    if (!reported.has(key)) unapplied(field);
    reported.add(key);
  };
  for (const { service } of outboundServices(proxy)) {
    const rule = ruleFor(rules.to, { [SERVICE_TAG]: service });
    const routeConfig = resources.get(ROUTE_TYPE_URL, service);
    if (rule === undefined || routeConfig === undefined) continue;
    const routes = destinationRoutes(service, rule, clusters, routeActionFields(routeConfig), (route) => grpcRoute(route, report)).map(grpcMatches);
    rerouting.put(
      resources,
      ROUTE_TYPE_URL,
      service,
      withRoutes(routeConfig, routes),
      [{ path: 'virtual_hosts[0].routes', origins: rule.origins }, ...routes.map(({ origins }, index) => ({ path: `virtual_hosts[0].routes[${index}]`, origins }))],
      service,
    );
  }
  clusters.putInto(resources);
  rerouting.removeUnusedClusters(resources);
}

/**
 * The route as gRPC can follow it. Every gRPC call is a POST without a query string, so a method
 * match either always holds (POST: dropped) or never does (the route is left out, as it would
 * never match), and a query parameter match never holds (left out, and said so).
 */
function grpcRoute(route: PreparedRoute, report: (field: UnappliedField) => void): PreparedRoute | undefined {
  const origin = route.origins.at(-1);
  const ruleField = origin && `${origin.item}.rules[${route.rule}]`;
  const say = (field: string, reason: string) => origin && report({ policy: { type: origin.type, name: origin.name }, field, reason });
  route.filters.forEach((filter, index) => say(`${ruleField}.default.filters[${index}]`, FILTER_REASONS[filter.type]));
  if ((route.match.queryParams ?? []).length > 0) {
    say(`${ruleField}.matches`, 'gRPC calls have no query string, so a query parameter match never holds: the route is left out');
    return undefined;
  }
  if (route.match.method !== undefined && route.match.method !== 'POST') return undefined;
  const { method: _method, ...match } = route.match;
  return { ...route, match, filters: [] };
}

/**
 * Header matchers as every gRPC client reads them. grpc-js takes any `present_match` for
 * "present", so Envoy's `present_match: false` (Absent) becomes an inverted presence match, which
 * gRFC A28 defines; and C-core before 1.52 (Debian's python3-grpcio 1.51) refuses the whole
 * RouteConfiguration over a `string_match` ("Invalid route header matcher specified"), so exact,
 * prefix and regex matches use the older fields every gRPC reads (`exact_match`, `prefix_match`,
 * `safe_regex_match`).
 */
function grpcMatches(destination: DestinationRoute): DestinationRoute {
  const match = destination.route['match'] as ProtoJson;
  const headers = match['headers'] as ProtoJson[] | undefined;
  if (headers === undefined) return destination;
  return { ...destination, route: { ...destination.route, match: { ...match, headers: headers.map(grpcHeaderMatcher) } } };
}

function grpcHeaderMatcher(header: ProtoJson): ProtoJson {
  const name = header['name'];
  if (header['present_match'] === false) return { name, present_match: true, invert_match: true };
  const stringMatch = header['string_match'] as { exact?: string; prefix?: string; safe_regex?: ProtoJson } | undefined;
  if (stringMatch === undefined) return header;
  if (stringMatch.exact !== undefined) return { name, exact_match: stringMatch.exact };
  if (stringMatch.prefix !== undefined) return { name, prefix_match: stringMatch.prefix };
  return { name, safe_regex_match: stringMatch.safe_regex };
}
