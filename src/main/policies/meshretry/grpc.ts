import { goDurationToProtoJson } from '../../resources/go-duration.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { grpcRouteRules } from '../core/grpc-routes.js';
import type { Draft } from '../core/draft.js';
import { routesOf } from '../core/listener-parts.js';
import type { PluginInput } from '../core/plugin.js';
import type { Rule } from '../core/rules.js';
import { keyOf, putEdited, type FieldsSet } from '../core/shared-edits.js';
import { reportUnapplied } from '../core/unapplied.js';
import type { MeshRetryConf } from './api.js';

type GrpcConf = NonNullable<MeshRetryConf['grpc']>;

/** Kuma's gRPC retryOn names as the status names gRPC reads in `retry_on` (gRFC A44; gRPC spells it "cancelled"). */
const GRPC_STATUS_NAMES: { readonly [name: string]: string } = {
  Canceled: 'cancelled',
  DeadlineExceeded: 'deadline-exceeded',
  Internal: 'internal',
  ResourceExhausted: 'resource-exhausted',
  Unavailable: 'unavailable',
};
/** The statuses among Kuma's default conditions; the others (connect-failure, reset…) are Envoy transport conditions. */
const DEFAULT_STATUS_NAMES = 'cancelled,resource-exhausted,unavailable';
/** gRPC's default base interval (gRFC A44), which is also Kuma's DefaultBaseInterval. */
const DEFAULT_BASE_INTERVAL = '0.025s';
/** gRPC makes at most this many attempts of a call, whatever the policy says (gRFC A6). */
const MAX_ATTEMPTS = 5;

/**
 * MeshRetry for proxyless gRPC, as gRPC implements retries (gRFC A44): a route's `retry_policy`
 * with gRPC status names in `retry_on`, `num_retries` and `retry_back_off`, from the conf's `grpc`
 * section (a proxyless client's traffic is gRPC). Per-try timeouts and rate-limited back-off are
 * reported as unapplied.
 */
export function applyMeshRetryToGrpc(input: PluginInput<MeshRetryConf>): void {
  const reported = new Set<Rule<MeshRetryConf>>();
  for (const { service, routeRules } of grpcRouteRules(input)) {
    for (const rule of new Set(routeRules)) {
      if (rule?.conf.grpc === undefined || reported.has(rule)) continue;
      reportUnappliedFields(input, rule, rule.conf.grpc);
      reported.add(rule);
    }
    putEdited(input.resources, ROUTE_TYPE_URL, service, ['MeshRetry gRPC routes', ...routeRules.map(keyOf)], (draft) => {
      const set: FieldsSet = [];
      routesOf(draft, '').forEach((route, index) => {
        const rule = routeRules[index];
        const policy = rule?.conf.grpc && grpcRetryPolicy(rule.conf.grpc);
        const action = route.value.route as Draft | undefined;
        if (policy === undefined || action === undefined) return;
        action.retry_policy = policy;
        set.push({ path: `${route.path}.route.retry_policy`, origins: rule!.origins });
      });
      return set.length > 0 ? set : undefined;
    });
  }
}

function grpcRetryPolicy(conf: GrpcConf): ProtoJson | undefined {
  if (conf.numRetries === 0) return undefined;
  const retryOn = (conf.retryOn ?? []).map((entry) => GRPC_STATUS_NAMES[String(entry)]!).join(',');
  return {
    retry_on: retryOn || DEFAULT_STATUS_NAMES,
    ...(conf.numRetries !== undefined && { num_retries: conf.numRetries }),
    ...(conf.backOff && {
      retry_back_off: {
        base_interval: conf.backOff.baseInterval === undefined ? DEFAULT_BASE_INTERVAL : goDurationToProtoJson(conf.backOff.baseInterval),
        ...(conf.backOff.maxInterval !== undefined && { max_interval: goDurationToProtoJson(conf.backOff.maxInterval) }),
      },
    }),
  };
}

function reportUnappliedFields(input: PluginInput<MeshRetryConf>, rule: Rule<MeshRetryConf>, grpc: GrpcConf): void {
  if (grpc.numRetries === 0) return;
  if (grpc.perTryTimeout !== undefined) {
    reportUnapplied(input, rule.origins, 'grpc.perTryTimeout', "gRPC's retry policy has no per-attempt timeout (gRFC A44)");
  }
  if (grpc.rateLimitedBackOff !== undefined) {
    reportUnapplied(input, rule.origins, 'grpc.rateLimitedBackOff', "gRPC's xDS client ignores rate_limited_retry_back_off (gRFC A44)");
  }
  if (grpc.numRetries !== undefined && grpc.numRetries + 1 > MAX_ATTEMPTS) {
    const reason = `gRPC makes at most ${MAX_ATTEMPTS} attempts of a call (gRFC A6): ${MAX_ATTEMPTS - 1} retries, not ${grpc.numRetries}`;
    reportUnapplied(input, rule.origins, 'grpc.numRetries', reason);
  }
}
