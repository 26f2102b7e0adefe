// A MeshRateLimit conf as Envoy's local rate limit configs (Kuma's pkg/xds/envoy/routes/v3/ratelimit.go
// and plugin/xds/configurer.go).
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { protoDuration } from '../core/proto-duration.js';
import type { LocalHTTP, LocalTCP, Rate } from './api.js';

export const HTTP_LOCAL_RATE_LIMIT_FILTER = 'envoy.filters.http.local_ratelimit';
const HTTP_LOCAL_RATE_LIMIT_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit';
/** Kuma names the network filter after its type, not `envoy.filters.network.local_ratelimit`. */
export const TCP_LOCAL_RATE_LIMIT_FILTER = 'envoy.extensions.filters.network.local_ratelimit.v3.LocalRateLimit';
const TCP_LOCAL_RATE_LIMIT_TYPE_URL = `type.googleapis.com/${TCP_LOCAL_RATE_LIMIT_FILTER}`;

/**
 * Envoy's HttpStatus codes (envoy.type.v3.StatusCode, `defined_only`): Kuma's validator takes any
 * status above 0, Envoy only these, and rejects the listener for any other (444, say).
 */
const ENVOY_STATUS_CODES = new Set([
  100, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401, 402, 403, 404, 405,
  406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 423, 424, 426, 428, 429, 431, 500, 501, 502, 503, 504,
  505, 506, 507, 508, 510, 511,
]);

export const STATUS_NOT_IN_ENVOY =
  "Envoy answers a rate-limited request only with a status of its StatusCode enum (envoy.type.v3.HttpStatus, defined_only); with another one it would reject the listener, so Envoy's default, 429, stays";

export function envoyAcceptsStatus(status: number): boolean {
  return ENVOY_STATUS_CODES.has(status);
}

function tokenBucket({ num, interval }: Rate): ProtoJson {
  return { max_tokens: num, tokens_per_fill: num, fill_interval: protoDuration(interval) };
}

/** The HCM filter: an empty shell, the limits are per route (typed_per_filter_config). */
export function httpRateLimitFilter(): ProtoJson {
  return { name: HTTP_LOCAL_RATE_LIMIT_FILTER, typed_config: { '@type': HTTP_LOCAL_RATE_LIMIT_TYPE_URL, stat_prefix: 'rate_limit' } };
}

/** Kuma's RateLimitConfigurationFromPolicy + NewRateLimitConfiguration: a route's limit; none when disabled or without a rate. */
export function routeRateLimit(http: LocalHTTP | undefined): ProtoJson | undefined {
  if (!http || http.disabled === true || !http.requestRate) return undefined;
  const headers = http.onRateLimit?.headers;
  const status = http.onRateLimit?.status;
  const enabled = (runtimeKey: string) => ({ default_value: { numerator: 100, denominator: 'HUNDRED' }, runtime_key: runtimeKey });
  return {
    '@type': HTTP_LOCAL_RATE_LIMIT_TYPE_URL,
    stat_prefix: 'rate_limit',
    ...(status !== undefined && status !== 0 && envoyAcceptsStatus(status) && { status: { code: status } }),
    token_bucket: tokenBucket(http.requestRate),
    filter_enabled: enabled('local_rate_limit_enabled'),
    filter_enforced: enabled('local_rate_limit_enforced'),
    // `add` first, then `set`, each value of a set header its own entry (Kuma splits them at commas).
    response_headers_to_add: [
      ...(headers?.add ?? []).map(({ name, value }) => ({ header: { key: name, value }, append_action: 'APPEND_IF_EXISTS_OR_ADD' })),
      ...(headers?.set ?? []).flatMap(({ name, value }) =>
        value.split(',').map((part) => ({ header: { key: name, value: part }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' })),
      ),
    ],
  };
}

/** The TCP connection limit, a network filter before the others; none when disabled or without a rate. */
export function tcpRateLimitFilter(tcp: LocalTCP | undefined): ProtoJson | undefined {
  if (!tcp || tcp.disabled === true || !tcp.connectionRate) return undefined;
  return {
    name: TCP_LOCAL_RATE_LIMIT_FILTER,
    typed_config: { '@type': TCP_LOCAL_RATE_LIMIT_TYPE_URL, stat_prefix: 'tcp_rate_limit', token_bucket: tokenBucket(tcp.connectionRate) },
  };
}
