// MeshRateLimit for proxyless gRPC: gRPC implements no rate limiting, neither client nor server
// side (none of its xDS features, gRFC A27-A81, reads a local_ratelimit filter). Every limit a rule
// sets on the proxy's inbounds is reported on the proxy instead.
import type { PluginInput } from '../core/plugin.js';
import { reportUnapplied } from '../core/report-unapplied.js';
import type { MeshRateLimitConf } from './api.js';
import { routeRateLimit, tcpRateLimitFilter } from './rate-limit.js';

const REASON = 'gRPC implements no rate limiting (no xDS feature of gRPC reads a local_ratelimit filter)';

export function applyMeshRateLimitToGrpc(input: PluginInput<MeshRateLimitConf>): void {
  for (const rules of input.rules.inbound.values()) {
    for (const { conf, origins } of rules) {
      if (routeRateLimit(conf.local?.http)) reportUnapplied(input, origins, 'default.local.http', REASON);
      if (tcpRateLimitFilter(conf.local?.tcp)) reportUnapplied(input, origins, 'default.local.tcp', REASON);
    }
  }
}
