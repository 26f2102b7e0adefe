// Resource names as Kuma 2.x gives them, so Kuma users recognise them in config dumps.
import { createHash } from 'node:crypto';

export function inboundListenerName(address: string, port: number): string {
  return `inbound:${address}:${port}`;
}

export function outboundListenerName(address: string, port: number): string {
  return `outbound:${address}:${port}`;
}

/** The static cluster in front of the application behind an inbound. */
export function localClusterName(servicePort: number): string {
  return `localhost:${servicePort}`;
}

export function inboundRouteName(service: string): string {
  return `inbound:${service}`;
}

export function outboundRouteName(service: string): string {
  return `outbound:${service}`;
}

/**
 * A name fit for Envoy's stats (Kuma's SanitizeMetric), for stat prefixes and `alt_stat_name`:
 * Envoy splits stat names on '.', and ':' reads badly in Prometheus names, so both become '_'.
 */
export function sanitizeMetric(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * The matches of the route MeshHTTPRoute gives an outbound without a rule: every path. The key
 * order is Go's field order, which the hash below depends on.
 */
export const CATCH_ALL_ROUTE_MATCHES = [{ path: { value: '/', type: 'PathPrefix' } }];

/**
 * The name of a MeshHTTPRoute rule's route (Kuma's HashMatches): base64 of the SHA-256 of its
 * matches as Go's json.Marshal writes them (keys in Go's field order, which the caller gives;
 * `<`, `>`, `&`, U+2028 and U+2029 escaped). Policies that target one route of an outbound find it by this name.
 */
export function routeMatchesName(matches: readonly unknown[] | null): string {
  const goJson = JSON.stringify(matches).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return createHash('sha256').update(goJson).digest('base64');
}
