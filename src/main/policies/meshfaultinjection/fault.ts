// One fault of a MeshFaultInjection conf as Envoy's HTTPFault (Kuma's plugin/xds/legacy_configurer.go
// convert* functions), shared by the Envoy and the gRPC forms.
import { parseGoDuration } from '../../resources/go-duration.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { BANDWIDTH, decimalFromIntOrString } from '../core/conf-checks.js';
import { protoDuration } from '../core/proto-duration.js';
import type { FaultInjectionConf } from './api.js';

export const FAULT_FILTER = 'envoy.filters.http.fault';
export const HTTP_FAULT_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault';

/**
 * Kuma's ConvertPercentage, in float64 as Kuma computes it: an integer is a share of HUNDRED, a
 * value with two decimals of TEN_THOUSAND, anything else of MILLION. So 62.9 is 6290/TEN_THOUSAND
 * but 33.3 is 333000/MILLION, because 100 × 33.3 is 3329.9999999999995 in a double.
 */
export function fractionalPercent(percentage: number | string): ProtoJson {
  const value = decimalFromIntOrString(percentage ?? 0) ?? 0;
  if (Number.isInteger(value)) return { numerator: value, denominator: 'HUNDRED' };
  if (Number.isInteger(100 * value)) return { numerator: 100 * value, denominator: 'TEN_THOUSAND' };
  return { numerator: Math.round(10_000 * value), denominator: 'MILLION' };
}

/** Kuma's ConvertBandwidthToKbps (`111Mbps` → "111000"), a uint64 in proto3 JSON. */
export function bandwidthKbps(limit: string): string {
  const [, digits, unit] = BANDWIDTH.exec(limit)!;
  const factor = unit === 'Gbps' ? 1_000_000 : unit === 'Mbps' ? 1000 : 1;
  return String(factor * Number(digits));
}

/**
 * Kuma's validator takes abort statuses 100-599, Envoy's HTTPFault only 200-599: Kuma sends a
 * 1xx abort and Envoy rejects the whole listener. meshdesk leaves such an abort out (and says so).
 */
export const ABORT_STATUS_OUT_OF_ENVOY_RANGE = 'Envoy aborts with an HTTP status from 200 to 599 only (HTTPFault abort.http_status); a 1xx abort would make Envoy reject the listener';

export function abortApplies(abort: FaultInjectionConf['abort']): abort is NonNullable<FaultInjectionConf['abort']> {
  return abort !== undefined && abort.httpStatus >= 200 && abort.httpStatus < 600;
}

/** A delay of some time: a zero one (or none given) delays nothing, and Envoy refuses a zero fixed_delay. */
export function delayApplies(delay: FaultInjectionConf['delay']): delay is NonNullable<FaultInjectionConf['delay']> {
  return delay !== undefined && (parseGoDuration(delay.value ?? '0s') ?? 0) > 0;
}

/** The HTTPFault parts gRPC applies (gRFC A33): delay and abort. */
export function delayAndAbort(fault: FaultInjectionConf): ProtoJson {
  return {
    // A delay without a value is Go's zero Duration: Kuma writes it and Envoy refuses it, while it delays nothing.
    ...(delayApplies(fault.delay) && { delay: { fixed_delay: protoDuration(fault.delay.value ?? '0s'), percentage: fractionalPercent(fault.delay.percentage) } }),
    ...(abortApplies(fault.abort) && { abort: { http_status: fault.abort.httpStatus, percentage: fractionalPercent(fault.abort.percentage) } }),
  };
}

/** The whole fault as Envoy applies it: delay, abort and the response bandwidth limit; `headers` narrows it to some callers. */
export function httpFault(fault: FaultInjectionConf, headers: readonly ProtoJson[] = []): ProtoJson {
  const bandwidth = fault.responseBandwidth;
  return {
    '@type': HTTP_FAULT_TYPE_URL,
    ...delayAndAbort(fault),
    ...(bandwidth && {
      response_rate_limit: { fixed_limit: { limit_kbps: bandwidthKbps(bandwidth.limit) }, percentage: fractionalPercent(bandwidth.percentage) },
    }),
    ...(headers.length > 0 && { headers }),
  };
}
