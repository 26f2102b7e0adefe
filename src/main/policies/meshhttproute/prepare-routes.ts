// Kuma's prepareRoutes (meshhttproute/plugin/v1alpha1/listeners.go) and CompareMatch (api/compare.go):
// a destination's rules as an ordered list of routes, one per match, named after their rule's matches.
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { routeMatchesName } from '../../xds/generate/names.js';
import type { BackendRef } from '../core/backend-ref.js';
import type { HeaderMatch, HttpFilter, HttpMatch, HttpRouteRule, PathMatch, QueryParamsMatch } from './api.js';

/** One route of a destination, before it becomes Envoy's (one or two Envoy routes: PathPrefix is two). */
export interface PreparedRoute {
  /** Kuma's HashMatches of the rule's whole matches list: every match of a rule shares it. */
  name: string;
  /** The match; a match without path has PathPrefix `/`. */
  match: HttpMatch & { path: PathMatch };
  filters: readonly HttpFilter[];
  /** Never empty: a rule without backendRefs sends to the destination itself. */
  backendRefs: readonly BackendRef[];
  /** Where the rule came from; none for the catch-all route Kuma adds. */
  origins: readonly PolicyOrigin[];
  /** Where the rule is in the conf (`rules[1]`), for reporting. */
  rule?: number;
}

const CATCH_ALL_PATH: PathMatch = { value: '/', type: 'PathPrefix' };

/**
 * Every match of every rule as a route, stably sorted by Gateway API precedence, then the
 * catch-all `PathPrefix /` route to `defaultBackend` unless a match is exactly that.
 */
export function prepareRoutes(
  rules: readonly HttpRouteRule[],
  defaultBackend: BackendRef,
  origins: readonly PolicyOrigin[],
): PreparedRoute[] {
  const routes: (Omit<PreparedRoute, 'match'> & { match: HttpMatch })[] = [];
  rules.forEach((rule, index) => {
    const name = ruleMatchesHash(rule.matches);
    for (const match of rule.matches ?? []) {
      // A rule without a `default` is Go's zero value: no filters, the destination itself.
      routes.push({ name, match, filters: rule.default?.filters ?? [], backendRefs: rule.default?.backendRefs ?? [], origins, rule: index });
    }
  });
  // Array.prototype.sort is stable, as Kuma's SortStableFunc.
  routes.sort((a, b) => compareMatch(a.match, b.match));
  if (!routes.some((route) => isCatchAll(route.match))) {
    const match = { path: CATCH_ALL_PATH };
    routes.push({ name: ruleMatchesHash([match]), match, filters: [], backendRefs: [], origins: [] });
  }
  return routes.map((route) => ({
    ...route,
    match: { ...route.match, path: route.match.path ?? CATCH_ALL_PATH },
    backendRefs: route.backendRefs.length > 0 ? route.backendRefs : [defaultBackend],
  }));
}

function isCatchAll(match: HttpMatch): boolean {
  return (
    match.path?.type === 'PathPrefix' &&
    match.path.value === '/' &&
    match.method === undefined &&
    match.queryParams === undefined &&
    match.headers === undefined
  );
}

/**
 * The hash a rule is known by (Kuma's HashMatches): its Envoy routes' name, and the
 * `__rule-matches-hash__` tag of the rules of policies aimed at its route.
 */
export function ruleMatchesHash(matches: readonly HttpMatch[] | undefined): string {
  return routeMatchesName(goMatches(matches));
}

/**
 * The matches as Go's json.Marshal sees Kuma's structs: fields in declaration order, `omitempty`
 * ones left out when empty, the others always written. Route names hash this text.
 */
function goMatches(matches: readonly HttpMatch[] | undefined): unknown[] | null {
  if (matches === undefined) return null;
  return matches.map((match) => ({
    ...(match.path && { path: { value: match.path.value ?? '', type: match.path.type ?? '' } }),
    ...(match.method !== undefined && { method: match.method }),
    ...(match.queryParams && {
      queryParams: match.queryParams.map((query: QueryParamsMatch) => ({ type: query.type ?? '', name: query.name ?? '', value: query.value ?? '' })),
    }),
    ...(match.headers && {
      headers: match.headers.map((header: HeaderMatch) => ({
        ...(header.type !== undefined && { type: header.type }),
        name: header.name ?? '',
        ...(header.value && { value: header.value }),
      })),
    }),
  }));
}

/** Kuma's CompareMatch: path (Exact < PathPrefix < RegularExpression, longer first), then method, then fewer headers, then fewer query params. */
export function compareMatch(a: HttpMatch, b: HttpMatch): number {
  return (
    comparePath(a.path, b.path) ||
    comparePresence(a.method, b.method) ||
    (b.headers?.length ?? 0) - (a.headers?.length ?? 0) ||
    (b.queryParams?.length ?? 0) - (a.queryParams?.length ?? 0)
  );
}

const PATH_TYPE_RANK: Record<PathMatch['type'], number> = { Exact: 0, PathPrefix: 1, RegularExpression: 2 };

function comparePath(a: PathMatch | undefined, b: PathMatch | undefined): number {
  if (a === undefined || b === undefined) return comparePresence(a, b);
  if (a.type === b.type) return a.type === 'Exact' ? 0 : b.value.length - a.value.length;
  return PATH_TYPE_RANK[a.type] - PATH_TYPE_RANK[b.type];
}

/** Present before absent. */
function comparePresence(a: unknown, b: unknown): number {
  return (a === undefined ? 1 : 0) - (b === undefined ? 1 : 0);
}
