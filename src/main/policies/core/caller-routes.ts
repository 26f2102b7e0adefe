// Inbound rules matching the caller's SPIFFE ID, on a sidecar's inbound routes (Kuma's MeshTimeout and
// MeshRateLimit plugin/xds/configurer.go ConfigureMatchedRoutes): before each route, one copy per
// distinct match, carrying the merged conf of every rule whose match covers that one.
//
// Kuma's copies match on filter state that set_filter_state writes at the TLS handshake
// (RouteMatch.filter_state, on_downstream_tls_handshake); neither field is in the Envoy protos
// meshdesk encodes with (those @grpc/grpc-js-xds 1.14 ships). meshdesk matches the same identity on
// x-forwarded-client-cert, which the inbound's HttpConnectionManager rewrites from the connection's
// client certificate before any route is matched (SANITIZE_SET: a caller cannot send its own).
import type { PolicyOrigin, PolicyType } from '../../../shared/policy-types.js';
import type { MeshResource } from '../../../shared/resources.js';
import { meshMtls } from '../../mtls/mesh-mtls.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { compareMatches } from './inbound-rules.js';
import { mergeConfsOf } from './merge.js';
import type { RuleMatch } from './policy.js';
import type { InboundRule } from './rules.js';

const CLIENT_CERT_HEADER = 'x-forwarded-client-cert';

export const CALLER_RULE_NEEDS_MTLS =
  'the mesh has no mTLS: no caller presents a SPIFFE ID, so a rule matching one never applies (Kuma writes a route copy that never matches); the catch-all conf applies to every caller';
export const SNI_RULES_ON_ZONE_PROXIES = 'Kuma applies a rule matching only an SNI on zone proxies, not on a sidecar inbound';
export const SNI_CALLER_RULE_NOT_ENCODABLE =
  "a route for callers matched by SNI needs RouteMatch.filter_state, which is not in meshdesk's Envoy API (the protos @grpc/grpc-js-xds ships), and no request header carries the SNI; the catch-all conf applies to these callers";

/** One distinct match and the conf its callers get on their copy of each route. */
export interface CallerRoute<Conf> {
  match: RuleMatch & { spiffeID: NonNullable<RuleMatch['spiffeID']> };
  conf: Conf;
  origins: readonly PolicyOrigin[];
}

/** Whether the mesh issues identities, without which no caller matches a SPIFFE ID. */
export function callersHaveIdentities(mesh: MeshResource): boolean {
  return meshMtls(mesh) !== undefined;
}

/** The rules matching a SPIFFE ID that a route copy can carry: those without an SNI condition. */
export function spiffeOnlyRules<Conf>(rules: readonly InboundRule<Conf>[]): InboundRule<Conf>[] {
  return rules.filter((rule) => rule.match?.spiffeID !== undefined && rule.match.sni === undefined);
}

/**
 * Kuma's effectiveMatchedRouteRules: the `relevant` SPIFFE-matched rules, most specific first (Exact,
 * then the longer Prefix); per distinct match, `base` (the catch-all conf, when given) and then every
 * rule whose match covers it, least specific first, merged.
 */
export function callerRoutes<Conf>(
  type: PolicyType,
  rules: readonly InboundRule<Conf>[],
  relevant: (conf: Conf) => boolean,
  base?: { conf: Conf; origins: readonly PolicyOrigin[] },
): CallerRoute<Conf>[] {
  const matched = spiffeOnlyRules(rules)
    .filter((rule) => relevant(rule.conf))
    .sort((a, b) => specificity(a.match!, b.match!));
  const routes: CallerRoute<Conf>[] = [];
  for (const rule of matched) {
    const match = rule.match as CallerRoute<Conf>['match'];
    if (routes.some((each) => sameMatch(each.match, match))) continue;
    const covering = matched.filter((candidate) => covers(candidate.match!, match)).sort((a, b) => specificity(b.match!, a.match!));
    const parts = [...(base ? [base] : []), ...covering];
    const [conf] = mergeConfsOf(
      type,
      parts.map((part) => part.conf),
    );
    routes.push({ match, conf: conf as Conf, origins: parts.flatMap((part) => part.origins) });
  }
  return routes;
}

/** Kuma's compareMatchedRouteSpecificity, descending: its CompareByMatch, then the longer Prefix first. */
function specificity(a: RuleMatch, b: RuleMatch): number {
  return compareMatches(a, b) || prefixLength(b) - prefixLength(a);
}

function prefixLength(match: RuleMatch): number {
  return match.spiffeID?.type === 'Prefix' ? match.spiffeID.value.length : 0;
}

function sameMatch(a: RuleMatch, b: RuleMatch): boolean {
  return a.spiffeID?.type === b.spiffeID?.type && a.spiffeID?.value === b.spiffeID?.value;
}

/** Kuma's spiffeIDMatchSubsumes: an Exact match covers itself, a Prefix every ID that starts with it. */
function covers(candidate: RuleMatch, target: RuleMatch): boolean {
  if (!candidate.spiffeID || !target.spiffeID) return false;
  if (candidate.spiffeID.type === 'Exact') return target.spiffeID.type === 'Exact' && candidate.spiffeID.value === target.spiffeID.value;
  return target.spiffeID.value.startsWith(candidate.spiffeID.value);
}

/**
 * The route copy's extra condition: one of the caller certificate's URI SANs in x-forwarded-client-cert
 * (`Hash=…;URI=spiffe://mesh/web;URI=kuma://…`) is the ID, or starts with the prefix. Kuma compares the
 * SANs joined by commas instead, which an Exact match of a certificate with several never meets.
 */
export function callerHeaderMatcher(match: CallerRoute<unknown>['match']): ProtoJson {
  const value = escapeRe2(match.spiffeID.value);
  const uri = match.spiffeID.type === 'Exact' ? value : `${value}[^;,]*`;
  return { name: CLIENT_CERT_HEADER, string_match: { safe_regex: { regex: `(.*;)?URI=${uri}(;.*)?` } } };
}

function escapeRe2(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/** Whether a route forwards to a cluster, the only kind Kuma copies (matchedRouteSupports…). */
function forwards(route: ProtoJson): boolean {
  const action = route.route as ProtoJson | undefined;
  const weighted = (action?.weighted_clusters as ProtoJson | undefined)?.clusters as ProtoJson[] | undefined;
  return Boolean(action?.cluster || action?.cluster_header || (weighted?.length && weighted.every((each) => each.name || each.cluster_header)));
}

/**
 * The routes with, before each one that forwards, its copies for `callers` (each configured by
 * `configure`), and `copied` told of every copy made.
 */
export function withCallerRoutes<Conf>(
  routes: readonly ProtoJson[],
  callers: readonly CallerRoute<Conf>[],
  configure: (copy: ProtoJson, caller: CallerRoute<Conf>) => ProtoJson,
  copied: (copy: ProtoJson, caller: CallerRoute<Conf>) => void,
): ProtoJson[] {
  return routes.flatMap((route) => {
    if (!forwards(route)) return [route];
    const copies = callers.map((caller) => {
      const match = (route.match ?? {}) as ProtoJson;
      const copy = configure({ ...route, match: { ...match, headers: [...((match.headers ?? []) as ProtoJson[]), callerHeaderMatcher(caller.match)] } }, caller);
      copied(copy, caller);
      return copy;
    });
    return [...copies, route];
  });
}

/**
 * The HttpConnectionManager setting x-forwarded-client-cert from the connection with the URI SANs,
 * which the copies read (meshdesk's inbound generator already does; set here so the copies never
 * rely on a header a caller could send).
 */
export function withClientCertUris(hcm: ProtoJson): ProtoJson {
  const details = (hcm.set_current_client_cert_details ?? {}) as ProtoJson;
  return { ...hcm, forward_client_cert_details: 'SANITIZE_SET', set_current_client_cert_details: { ...details, uri: true } };
}
