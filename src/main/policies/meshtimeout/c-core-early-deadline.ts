import type { ProxyUserAgent } from '../../xds/generate/proxy.js';
import { isGrpcCCore } from '../core/grpc-c-core.js';

/**
 * Why a route's `max_stream_duration` must not reach this client, or undefined when it may.
 *
 * gRPC C-core sets a call's deadline from a service-config timeout (which is what the xDS resolver
 * makes of `max_stream_duration`, gRFC A31) as `Timestamp::FromCycleCounterRoundUp(call start) +
 * timeout`, but its `Timestamp::Now()` counts from a process epoch set 1 s plus the fraction of the
 * current second earlier than the cycle-counter epoch (time.cc, InitTime). Every such deadline is
 * therefore 1 to 2 s early: under a 300 ms or 1 s timeout every call fails at once with
 * DEADLINE_EXCEEDED, and no duration meshdesk could write means what the policy says. Reported
 * upstream as grpc/grpc#34547 (1.54) and #40633 (1.74), both open: no C-core version is known to
 * be right, so every C-core keeps its application's deadlines.
 */
export function earlyDeadlineReason(userAgent: ProxyUserAgent | undefined): string | undefined {
  if (!isGrpcCCore(userAgent)) return undefined;
  return (
    `gRPC ${userAgent.version || 'C-core'} ends a call 1 to 2 s before a route's max_stream_duration ` +
    '(its timeout deadlines start from a clock 1 s and a fraction behind its own: grpc/grpc#34547), ' +
    "so a short timeout would fail every call at once: the client keeps the application's deadlines"
  );
}
