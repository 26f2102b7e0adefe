import { goDurationToProtoJson, parseGoDuration } from '../../resources/go-duration.js';
import { ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { grpcRouteRules } from '../core/grpc-routes.js';
import type { Draft } from '../core/draft.js';
import { routesOf } from '../core/listener-parts.js';
import type { PluginInput } from '../core/plugin.js';
import type { InboundRule, Rule } from '../core/rules.js';
import { keyOf, putEdited, type FieldsSet } from '../core/shared-edits.js';
import { reportUnapplied } from '../core/unapplied.js';
import { setFields, type MeshTimeoutPolicyConf } from './api.js';
import { earlyDeadlineReason } from './c-core-early-deadline.js';

type Conf = MeshTimeoutPolicyConf;

/** Why gRPC cannot apply each MeshTimeout field it does not read (gRFC A27, A31). */
const NOT_IN_GRPC: { readonly [field: string]: string } = {
  connectionTimeout: "gRPC's xDS client ignores a cluster's connect_timeout (gRFC A27)",
  idleTimeout: "gRPC's xDS client reads no connection idle timeout (gRFC A27)",
  'http.streamIdleTimeout': "gRPC's xDS client reads no per-stream idle timeout (gRFC A31 reads only max_stream_duration)",
  'http.maxConnectionDuration': "gRPC's xDS client reads no max_connection_duration (gRFC A27)",
  'http.requestHeadersTimeout': 'a server-side HTTP connection manager timeout; a proxyless gRPC client has none',
};
const NO_INBOUND = 'meshdesk sends a proxyless gRPC proxy no inbound (server-side) configuration';

/**
 * MeshTimeout for proxyless gRPC, as gRPC implements timeouts (gRFC A31): a route's
 * `max_stream_duration` caps every call's deadline. It comes from `http.requestTimeout` (a gRPC call
 * is one request) and `http.maxStreamDuration`, the shorter of the two when both are set; 0 leaves
 * the application's deadline alone. Only what a rule sets is applied: Kuma's defaults describe
 * Envoy's configuration, and a gRPC client without a policy keeps its own behaviour. C-core gets
 * no deadline at all: it would end every call 1 to 2 s early (c-core-early-deadline.ts).
 */
export function applyMeshTimeoutToGrpc(input: PluginInput<Conf>): void {
  const { rules, resources } = input;
  const earlyDeadline = earlyDeadlineReason(input.proxy.userAgent);
  const reported = new Set<Rule<Conf>>();
  for (const { service, routeRules } of grpcRouteRules(input)) {
    for (const rule of new Set(routeRules)) {
      if (rule === undefined || reported.has(rule)) continue;
      const deadlineFields = new Set(deadlineLimits(rule.conf).map(({ field }) => field));
      reportUnappliedFields(input, rule, (field) => NOT_IN_GRPC[field] ?? (deadlineFields.has(field) ? earlyDeadline : undefined));
      reported.add(rule);
    }
    if (earlyDeadline !== undefined) continue;
    putEdited(resources, ROUTE_TYPE_URL, service, ['MeshTimeout gRPC routes', ...routeRules.map(keyOf)], (draft) => {
      const set: FieldsSet = [];
      routesOf(draft, '').forEach((route, index) => {
        const rule = routeRules[index];
        const deadline = rule && callDeadline(rule.conf);
        const action = route.value.route as Draft | undefined;
        if (deadline === undefined || action === undefined) return;
        action.max_stream_duration = { max_stream_duration: deadline };
        set.push({ path: `${route.path}.route.max_stream_duration.max_stream_duration`, origins: rule!.origins });
      });
      return set.length > 0 ? set : undefined;
    });
  }
  for (const inboundRules of rules.inbound.values()) {
    for (const rule of inboundRules) reportUnappliedFields(input, rule, () => NO_INBOUND);
  }
}

function reportUnappliedFields(input: PluginInput<Conf>, rule: Rule<Conf> | InboundRule<Conf>, reason: (field: string) => string | undefined): void {
  for (const field of setFields(rule.conf)) {
    const why = reason(field);
    if (why !== undefined) reportUnapplied(input, rule.origins, field, why);
  }
}

/** The conf's fields that cap a call's deadline, each set to a non-zero duration, shortest first. */
function deadlineLimits(conf: Conf): { field: string; value: string }[] {
  return [
    { field: 'http.requestTimeout', value: conf.http?.requestTimeout },
    { field: 'http.maxStreamDuration', value: conf.http?.maxStreamDuration },
  ]
    .filter((limit): limit is { field: string; value: string } => limit.value !== undefined && (parseGoDuration(limit.value) ?? 0) > 0)
    .sort((a, b) => parseGoDuration(a.value)! - parseGoDuration(b.value)!);
}

/** The shortest non-zero of the request timeout and the max stream duration, as a proto3 JSON duration. */
function callDeadline(conf: Conf): string | undefined {
  const shortest = deadlineLimits(conf)[0];
  return shortest === undefined ? undefined : goDurationToProtoJson(shortest.value);
}
