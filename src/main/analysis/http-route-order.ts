// The routes of every MeshHTTPRoute rule a proxy has, in the order its Envoy tries them: what the
// route analyzers read. Built with the generator's own prepareRoutes, from the generator's rules.
import type { FindingLocation } from '../../shared/analysis-types.js';
import type { HttpMatch, MeshHTTPRouteConf, PathMatch } from '../policies/meshhttproute/api.js';
import { prepareRoutes, ruleMatchesHash, type PreparedRoute } from '../policies/meshhttproute/prepare-routes.js';
import { computeProxyRules } from '../policies/core/proxy-rules.js';
import type { PolicySpec } from '../policies/core/policy.js';
import { ruleFor, type Rule } from '../policies/core/rules.js';
import { SERVICE_TAG, type DataplaneResource } from '../../shared/resources.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { memoizedForContext } from '../xds/generate/context-memo.js';
import { matchCovers } from './route-coverage.js';

/** One route of a destination, with the policy field it came from (none: Kuma's catch-all). */
export interface LocatedRoute {
  route: PreparedRoute;
  location?: FindingLocation;
  /** The match as the policy writes it (a match without path is tried after those with one). */
  written?: HttpMatch;
}

/** An outbound of one proxy and its routes, first tried first. */
export interface DestinationRouteOrder {
  dataplane: DataplaneResource;
  /** The outbound's `kuma.io/service`. */
  destination: string;
  routes: LocatedRoute[];
}

/** Every proxy's outbounds that a MeshHTTPRoute rule reaches, with their routes in Envoy's order (once per context: three analyzers read them). */
export function httpRouteOrders(context: MeshContext): readonly DestinationRouteOrder[] {
  return memoizedForContext(context, 'analysis:http-route-orders', () => buildRouteOrders(context));
}

function buildRouteOrders(context: MeshContext): DestinationRouteOrder[] {
  const orders: DestinationRouteOrder[] = [];
  for (const dataplane of context.dataplanesByName.values()) {
    const rules = computeProxyRules(context, dataplane, 'MeshHTTPRoute').rules.to as readonly Rule<MeshHTTPRouteConf>[];
    if (rules.length === 0) continue;
    const destinations = new Set((dataplane.spec.networking.outbound ?? []).flatMap((outbound) => outbound.tags?.[SERVICE_TAG] ?? []));
    for (const destination of destinations) {
      const rule = ruleFor(rules, { [SERVICE_TAG]: destination });
      if (!rule) continue;
      const routes = prepareRoutes(rule.conf.rules ?? [], { kind: 'MeshService', name: destination }, rule.origins);
      orders.push({ dataplane, destination, routes: routes.map((route) => ({ route, ...locate(context, rule, route) })) });
    }
  }
  return orders;
}

/** `spec.to[0].rules[1].matches[0]` of the policy whose rule made `route`, and that match as written. */
function locate(context: MeshContext, rule: Rule<MeshHTTPRouteConf>, route: PreparedRoute): { location?: FindingLocation; written?: HttpMatch } {
  const origin = route.rule === undefined ? undefined : rule.originByMatches?.get(route.name);
  if (!origin) return {};
  const policy = context.policies.find((each) => each.type === origin.type && each.meta.name === origin.name);
  const itemIndex = Number(/\[(\d+)\]$/.exec(origin.item)?.[1] ?? -1);
  const item = (policy?.spec as PolicySpec | undefined)?.to?.[itemIndex] as { rules?: { matches?: HttpMatch[] }[] } | undefined;
  const ruleIndex = item?.rules?.findIndex((each) => ruleMatchesHash(each.matches) === route.name) ?? -1;
  const matchIndex = ruleIndex < 0 ? -1 : item!.rules![ruleIndex]!.matches!.findIndex((match) => sameMatch(match, route.match));
  const field = ruleIndex < 0 ? origin.item : `${origin.item}.rules[${ruleIndex}]${matchIndex < 0 ? '' : `.matches[${matchIndex}]`}`;
  return { location: { type: origin.type, mesh: origin.mesh, name: origin.name, field }, written: matchIndex < 0 ? undefined : item!.rules![ruleIndex]!.matches![matchIndex] };
}

const CATCH_ALL: PathMatch = { type: 'PathPrefix', value: '/' };

function sameMatch(a: HttpMatch, b: HttpMatch): boolean {
  const canonical = (match: HttpMatch) => {
    const path = match.path ?? CATCH_ALL;
    return JSON.stringify([path.type, path.value, match.method, match.headers?.map((header) => [header.type ?? 'Exact', header.name, header.value]), match.queryParams?.map((query) => [query.type, query.name, query.value])]);
  };
  return canonical(a) === canonical(b);
}

/** Envoy's reading of a match in one line: `PathPrefix /api, header x-version: v2`. */
export function describeMatch(match: HttpMatch): string {
  const parts = [match.path ? `${match.path.type} ${match.path.value}` : 'any path'];
  if (match.method) parts.push(`method ${match.method}`);
  for (const header of match.headers ?? []) parts.push(`header ${header.name}${header.value === undefined ? ` ${header.type ?? 'Exact'}` : `: ${header.value}`}`);
  for (const query of match.queryParams ?? []) parts.push(`query ${query.name}=${query.value}`);
  return parts.join(', ');
}

/** A located route of an outbound and the first route before it that takes every request it matches. */
export interface ShadowedRoute {
  order: DestinationRouteOrder;
  shadowed: LocatedRoute & { location: FindingLocation };
  by: LocatedRoute;
  /** The two matches are the same: each takes every request of the other. */
  same: boolean;
}

/** Every route that an earlier one of its outbound shadows (the catch-all Kuma adds is never the shadowed one). */
export function shadowedRoutes(context: MeshContext): ShadowedRoute[] {
  return httpRouteOrders(context).flatMap((order) =>
    order.routes.flatMap((route, index) => {
      if (!route.location) return [];
      const by = order.routes.slice(0, index).find((earlier) => matchCovers(earlier.route.match, route.route.match));
      return by ? [{ order, shadowed: route as ShadowedRoute['shadowed'], by, same: matchCovers(route.route.match, by.route.match) }] : [];
    }),
  );
}
