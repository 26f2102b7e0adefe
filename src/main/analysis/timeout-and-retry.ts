// The MeshTimeout and MeshRetry confs one proxy applies to one destination, read from the rules the
// plugins read: what the timeout analyzers compare.
import { SERVICE_TAG, type DataplaneResource } from '../../shared/resources.js';
import { isInitialPolicy } from '../manager/initial-policies.js';
import { computeProxyRules } from '../policies/core/proxy-rules.js';
import { ruleFor, type Rule } from '../policies/core/rules.js';
import type { MeshRetryConf } from '../policies/meshretry/api.js';
import type { MeshTimeoutPolicyConf } from '../policies/meshtimeout/api.js';
import { parseGoDuration } from '../resources/go-duration.js';
import { serviceProtocol, type MeshContext } from '../xds/context/mesh-context.js';
import { memoizedForContext } from '../xds/generate/context-memo.js';

export interface DestinationTimeouts {
  dataplane: DataplaneResource;
  /** The Dataplane's outbound to it: `networking.outbound[2]`. */
  outbound: number;
  destination: string;
  timeout?: Rule<MeshTimeoutPolicyConf>;
  retry?: Rule<MeshRetryConf>;
  /** The MeshRetry conf section the destination's protocol reads, and its name. */
  retrySection?: NonNullable<MeshRetryConf['http']>;
  retrySectionName: 'http' | 'grpc';
  /** In milliseconds; undefined when unset or 0 (0 turns the timeout off). */
  requestTimeoutMs?: number;
  streamIdleTimeoutMs?: number;
  perTryTimeoutMs?: number;
  /** True when a policy the user wrote takes part (Kuma's initial policies alone are Kuma's defaults, not a mistake). */
  userWritten: boolean;
}

/** Every HTTP or gRPC outbound of every proxy, with its timeout and retry confs (once per context: two analyzers read them). */
export function destinationTimeouts(context: MeshContext): readonly DestinationTimeouts[] {
  return memoizedForContext(context, 'analysis:destination-timeouts', () => buildDestinationTimeouts(context));
}

function buildDestinationTimeouts(context: MeshContext): DestinationTimeouts[] {
  const mesh = context.mesh.meta.name;
  const found: DestinationTimeouts[] = [];
  for (const dataplane of context.dataplanesByName.values()) {
    const timeouts = computeProxyRules(context, dataplane, 'MeshTimeout').rules.to as readonly Rule<MeshTimeoutPolicyConf>[];
    const retries = computeProxyRules(context, dataplane, 'MeshRetry').rules.to as readonly Rule<MeshRetryConf>[];
    (dataplane.spec.networking.outbound ?? []).forEach((outbound, index) => {
      const destination = outbound.tags?.[SERVICE_TAG];
      if (destination === undefined) return;
      const protocol = serviceProtocol(context, destination);
      if (protocol !== 'http' && protocol !== 'http2' && protocol !== 'grpc') return;
      const tags = { [SERVICE_TAG]: destination };
      const timeout = ruleFor(timeouts, tags);
      const retry = ruleFor(retries, tags);
      const retrySectionName = protocol === 'grpc' ? 'grpc' : 'http';
      // The last item merged is the one whose fields win: Kuma's defaults under a user's policy that changes nothing are still Kuma's.
      const deciding = [timeout?.origins.at(-1), retry?.origins.at(-1)].filter((origin) => origin !== undefined);
      found.push({
        dataplane,
        outbound: index,
        destination,
        timeout,
        retry,
        retrySection: retry?.conf[retrySectionName],
        retrySectionName,
        requestTimeoutMs: positive(timeout?.conf.http?.requestTimeout),
        perTryTimeoutMs: positive(retry?.conf[retrySectionName]?.perTryTimeout),
        streamIdleTimeoutMs: positive(timeout?.conf.http?.streamIdleTimeout),
        userWritten: deciding.some((origin) => !isInitialPolicy(origin.type, origin.name, mesh)),
      });
    });
  }
  return found;
}

function positive(duration: string | undefined): number | undefined {
  const nanoseconds = duration === undefined ? undefined : parseGoDuration(duration);
  return nanoseconds === undefined || nanoseconds <= 0 ? undefined : nanoseconds / 1e6;
}

/** `15s`, `1m30s`: milliseconds as a person reads them. */
export function formatMs(milliseconds: number): string {
  if (milliseconds < 1000) return `${milliseconds}ms`;
  const seconds = milliseconds / 1000;
  return seconds < 120 ? `${Number(seconds.toFixed(3))}s` : `${Number((seconds / 60).toFixed(2))}m`;
}
