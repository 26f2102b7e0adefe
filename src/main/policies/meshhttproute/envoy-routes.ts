// Kuma's RoutesConfigurer (meshhttproute/xds/configurer.go, match.go, filters/): a prepared route as
// Envoy routes, in proto3 JSON with proto field names.
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { fractionalPercent } from '../core/fractional-percent.js';
import type { Split } from '../core/route-clusters.js';
import type { HeaderMatch, HeaderModifier, HttpFilter, HttpMatch, PathMatch, PathRewrite, QueryParamsMatch, RequestRedirect } from './api.js';
import type { PreparedRoute } from './prepare-routes.js';

/** A route's Envoy match and whether it came from a PathPrefix (prefix rewrites need to know). */
interface EnvoyMatch {
  match: ProtoJson;
  fromPrefix: boolean;
}

/**
 * The Envoy routes of one prepared route: one per Envoy match (PathPrefix `/v1` is `path: /v1`
 * and `prefix: /v1/`), each sending to `splits` with `actionFields` (the timeouts every route of
 * the listener has), then changed by the rule's filters in their order. `mirrorCluster` names the
 * cluster of a RequestMirror filter's backendRef.
 */
export function envoyRoutes(
  route: PreparedRoute,
  splits: readonly Split[],
  actionFields: ProtoJson,
  mirrorCluster: (filter: HttpFilter) => string | undefined,
): ProtoJson[] {
  return envoyMatches(route.match).map(({ match, fromPrefix }) => {
    let envoyRoute: ProtoJson = { match, name: route.name, route: { ...clusterSpecifier(splits), ...actionFields } };
    for (const filter of route.filters) envoyRoute = applyFilter(envoyRoute, filter, fromPrefix, mirrorCluster(filter));
    return envoyRoute;
  });
}

/** One cluster, or weighted clusters when the route splits. */
export function clusterSpecifier(splits: readonly Split[]): ProtoJson {
  if (splits.length === 1) return { cluster: splits[0]!.cluster };
  return { weighted_clusters: { clusters: splits.map(({ cluster, weight }) => ({ name: cluster, weight })) } };
}

function envoyMatches(match: HttpMatch & { path: PathMatch }): EnvoyMatch[] {
  const fromPrefix = match.path.type === 'PathPrefix';
  return pathSpecifiers(match.path).map((path) => {
    const headers = [
      ...(match.method !== undefined ? [{ name: ':method', string_match: { exact: match.method } }] : []),
      ...headerMatchers(match.headers ?? []),
    ];
    const queryParameters = queryParameterMatchers(match.queryParams ?? []);
    return {
      match: { ...path, ...(headers.length > 0 && { headers }), ...(queryParameters.length > 0 && { query_parameters: queryParameters }) },
      fromPrefix,
    };
  });
}

/** Gateway API semantics: PathPrefix `/v1` matches `/v1` and `/v1/…`, not `/v10`. */
function pathSpecifiers(path: PathMatch): ProtoJson[] {
  switch (path.type) {
    case 'Exact':
      return [{ path: path.value }];
    case 'RegularExpression':
      return [{ safe_regex: { regex: path.value } }];
    case 'PathPrefix': {
      if (path.value === '/') return [{ prefix: '/' }];
      const trimmed = path.value.replace(/\/$/, '');
      return [{ path: trimmed }, { prefix: `${trimmed}/` }];
    }
  }
}

/** Header matchers; a name given twice counts once (the first), Absent is `present_match: false`. */
function headerMatchers(headers: readonly HeaderMatch[]): ProtoJson[] {
  const seen = new Set<string>();
  const matchers: ProtoJson[] = [];
  for (const header of headers) {
    if (seen.has(header.name)) continue;
    seen.add(header.name);
    const value = header.value ?? '';
    switch (header.type ?? 'Exact') {
      case 'Exact':
        matchers.push({ name: header.name, string_match: { exact: value } });
        break;
      case 'Present':
        matchers.push({ name: header.name, present_match: true });
        break;
      case 'RegularExpression':
        matchers.push({ name: header.name, string_match: { safe_regex: { regex: value } } });
        break;
      case 'Absent':
        matchers.push({ name: header.name, present_match: false });
        break;
      case 'Prefix':
        matchers.push(value === '' ? { name: header.name, present_match: true } : { name: header.name, string_match: { prefix: value } });
        break;
    }
  }
  return matchers;
}

function queryParameterMatchers(queryParams: readonly QueryParamsMatch[]): ProtoJson[] {
  const seen = new Set<string>();
  const matchers: ProtoJson[] = [];
  for (const query of queryParams) {
    if (seen.has(query.name)) continue;
    seen.add(query.name);
    const stringMatch = query.type === 'RegularExpression' ? { safe_regex: { regex: query.value } } : { exact: query.value };
    matchers.push({ name: query.name, string_match: stringMatch });
  }
  return matchers;
}

function applyFilter(route: ProtoJson, filter: HttpFilter, fromPrefix: boolean, mirrorCluster: string | undefined): ProtoJson {
  const action = route['route'] as ProtoJson | undefined;
  const match = route['match'] as ProtoJson;
  switch (filter.type) {
    case 'RequestHeaderModifier':
      return withHeaderModifier(route, 'request', filter.requestHeaderModifier!);
    case 'ResponseHeaderModifier':
      return withHeaderModifier(route, 'response', filter.responseHeaderModifier!);
    case 'RequestRedirect': {
      const { route: _action, ...rest } = route;
      return { ...rest, redirect: redirectAction(filter.requestRedirect!, fromPrefix, match) };
    }
    case 'URLRewrite': {
      // As Kuma's UpdateRouteAction: a route already turned into a redirect has no action to rewrite.
      if (action === undefined) return route;
      const { hostname, path } = filter.urlRewrite!;
      return {
        ...route,
        route: { ...action, ...(hostname !== undefined && { host_rewrite_literal: hostname }), ...(path && pathRewrite(path, fromPrefix, match)) },
      };
    }
    case 'RequestMirror': {
      if (action === undefined || mirrorCluster === undefined) return route;
      const { percentage } = filter.requestMirror!;
      const policy = {
        cluster: mirrorCluster,
        ...(percentage !== undefined && { runtime_fraction: { default_value: fractionalPercent(Number(percentage)) } }),
      };
      return { ...route, route: { ...action, request_mirror_policies: [...((action['request_mirror_policies'] as ProtoJson[]) ?? []), policy] } };
    }
  }
}

/** Kuma's headerModifiers: `set` entries (overwrite) first, then `add` entries (append), then removals. */
function withHeaderModifier(route: ProtoJson, direction: 'request' | 'response', modifier: HeaderModifier): ProtoJson {
  const toAdd = `${direction}_headers_to_add`;
  const toRemove = `${direction}_headers_to_remove`;
  const options = [
    ...(modifier.set ?? []).map(({ name, value }) => ({ header: { key: name, value }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' })),
    ...(modifier.add ?? []).map(({ name, value }) => ({ header: { key: name, value }, append_action: 'APPEND_IF_EXISTS_OR_ADD' })),
  ];
  const removes = modifier.remove ?? [];
  return {
    ...route,
    ...(options.length > 0 && { [toAdd]: [...((route[toAdd] as ProtoJson[]) ?? []), ...options] }),
    ...(removes.length > 0 && { [toRemove]: [...((route[toRemove] as string[]) ?? []), ...removes] }),
  };
}

const REDIRECT_CODES: Record<number, string> = {
  301: 'MOVED_PERMANENTLY',
  302: 'FOUND',
  303: 'SEE_OTHER',
  307: 'TEMPORARY_REDIRECT',
  308: 'PERMANENT_REDIRECT',
};

function redirectAction(redirect: RequestRedirect, fromPrefix: boolean, match: ProtoJson): ProtoJson {
  const rewrite = redirect.path ? pathRewrite(redirect.path, fromPrefix, match) : {};
  return {
    ...(redirect.hostname !== undefined && { host_redirect: redirect.hostname }),
    ...(redirect.port !== undefined && { port_redirect: redirect.port }),
    ...(redirect.scheme !== undefined && { scheme_redirect: redirect.scheme }),
    ...rewrite,
    response_code: REDIRECT_CODES[redirect.statusCode ?? 302] ?? 'FOUND',
  };
}

/**
 * A path rewrite: a full replacement is a regex rewrite of everything; a prefix replacement
 * rewrites the prefix of a `prefix` route, and the whole path of the `path` route PathPrefix
 * also makes (only routes from a PathPrefix match get one).
 */
function pathRewrite(path: PathRewrite, fromPrefix: boolean, match: ProtoJson): ProtoJson {
  const regex = (substitution: string) => ({ regex_rewrite: { pattern: { regex: '.*' }, substitution } });
  if (path.type === 'ReplaceFullPath') return regex(path.replaceFullPath ?? '');
  if (!fromPrefix) return {};
  if (match['path'] !== undefined) return regex(path.replacePrefixMatch ?? '');
  return { prefix_rewrite: path.replacePrefixMatch ?? '' };
}
