// The MeshTimeout and MeshRetry values one proxy applies to one destination, each with the policy
// item that set it, read from the rules the plugins read: what the timeout analyzers compare.
import type { PolicyOrigin } from '../../shared/policy-types.js';
import { SERVICE_TAG, type DataplaneResource } from '../../shared/resources.js';
import { isInitialPolicy } from '../manager/initial-policies.js';
import type { PolicyResource } from '../policies/core/policy.js';
import { computeProxyRules } from '../policies/core/proxy-rules.js';
import { ruleFor, type Rule } from '../policies/core/rules.js';
import type { MeshRetryConf } from '../policies/meshretry/api.js';
import type { MeshTimeoutPolicyConf } from '../policies/meshtimeout/api.js';
import { parseGoDuration } from '../resources/go-duration.js';
import { serviceProtocol, type MeshContext } from '../xds/context/mesh-context.js';
import { memoizedForContext } from '../xds/generate/context-memo.js';

/** A duration in force and the policy item that set it (the last one merged that sets it). */
export interface SetDuration {
  ms: number;
  origin: PolicyOrigin;
  /** Where in the item: `default.http.requestTimeout`. */
  field: string;
  /** Kuma's initial policies set it: Kuma's defaults, not something the user wrote. */
  initial: boolean;
}

export interface DestinationTimeouts {
  dataplane: DataplaneResource;
  destination: string;
  /** Undefined when unset or 0 (0 turns the timeout off). */
  requestTimeout?: SetDuration;
  streamIdleTimeout?: SetDuration;
  perTryTimeout?: SetDuration;
  /** MeshRetry's tries: numRetries (of the section the destination's protocol reads) + 1. */
  tries: number;
}

/** Every HTTP or gRPC outbound of every proxy, with its timeout and retry values (once per context: two analyzers read them). */
export function destinationTimeouts(context: MeshContext): readonly DestinationTimeouts[] {
  return memoizedForContext(context, 'analysis:destination-timeouts', () => buildDestinationTimeouts(context));
}

function buildDestinationTimeouts(context: MeshContext): DestinationTimeouts[] {
  const found: DestinationTimeouts[] = [];
  for (const dataplane of context.dataplanesByName.values()) {
    const timeouts = computeProxyRules(context, dataplane, 'MeshTimeout').rules.to as readonly Rule<MeshTimeoutPolicyConf>[];
    const retries = computeProxyRules(context, dataplane, 'MeshRetry').rules.to as readonly Rule<MeshRetryConf>[];
    const destinations = new Set((dataplane.spec.networking.outbound ?? []).flatMap((outbound) => outbound.tags?.[SERVICE_TAG] ?? []));
    for (const destination of destinations) {
      const protocol = serviceProtocol(context, destination);
      if (protocol !== 'http' && protocol !== 'http2' && protocol !== 'grpc') continue;
      const tags = { [SERVICE_TAG]: destination };
      const timeout = ruleFor(timeouts, tags);
      const retry = ruleFor(retries, tags);
      const section = protocol === 'grpc' ? 'grpc' : 'http';
      found.push({
        dataplane,
        destination,
        requestTimeout: timeout && setDuration(context, timeout, ['http', 'requestTimeout']),
        streamIdleTimeout: timeout && setDuration(context, timeout, ['http', 'streamIdleTimeout']),
        perTryTimeout: retry && setDuration(context, retry, [section, 'perTryTimeout']),
        tries: (retry?.conf[section]?.numRetries ?? 0) + 1,
      });
    }
  }
  return found;
}

/** The merged value at `path` of the rule's conf, if a positive duration, and the last item merged that sets it. */
function setDuration(context: MeshContext, rule: Rule<unknown>, path: readonly string[]): SetDuration | undefined {
  const text = valueAt(rule.conf, path);
  const nanoseconds = typeof text === 'string' ? parseGoDuration(text) : undefined;
  if (nanoseconds === undefined || nanoseconds <= 0) return undefined;
  const origin = [...rule.origins].reverse().find((each) => valueAt(itemConf(context, each), path) !== undefined);
  if (!origin) return undefined;
  return { ms: nanoseconds / 1e6, origin, field: `default.${path.join('.')}`, initial: isInitialPolicy(origin.type, origin.name, context.mesh.meta.name) };
}

/** The `default` of the item an origin names (`spec.to[1]`). */
function itemConf(context: MeshContext, origin: PolicyOrigin): unknown {
  const policy: PolicyResource | undefined = context.policies.find((each) => each.type === origin.type && each.meta.name === origin.name);
  const index = Number(/^spec\.to\[(\d+)\]$/.exec(origin.item)?.[1] ?? -1);
  return policy?.spec.to?.[index]?.default;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined), value);
}

/** `15s`, `1m30s`: milliseconds as a person reads them. */
export function formatMs(milliseconds: number): string {
  if (milliseconds < 1000) return `${milliseconds}ms`;
  const seconds = milliseconds / 1000;
  return seconds < 120 ? `${Number(seconds.toFixed(3))}s` : `${Number((seconds / 60).toFixed(2))}m`;
}
