import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { goDurationToProtoJson } from '../../resources/go-duration.js';
import { decimalFromIntOrString } from '../core/conf-checks.js';
import type { OutlierDetection } from './api.js';

/** A detector that is configured is enforced on every ejection it decides; one that is not, never. */
const ENFORCED = 100;
const NOT_ENFORCED = 0;

/**
 * Kuma's configureOutlierDetection: Envoy's OutlierDetection for a conf, none when it is disabled.
 * A detector left out is written with its enforcing percentage at 0, except that without any
 * `detectors` only the three consecutive-failure ones are (Envoy then keeps success rate on).
 */
export function envoyOutlierDetection(conf: OutlierDetection | undefined): ProtoJson | undefined {
  if (conf === undefined || conf.disabled === true) return undefined;
  const detectors = conf.detectors;
  const { totalFailures, gatewayFailures, localOriginFailures, successRate, failurePercentage } = detectors ?? {};
  const consecutive = (field: string, enforcing: string, count: number | undefined) =>
    count === undefined ? { [enforcing]: NOT_ENFORCED } : { [enforcing]: ENFORCED, [field]: count };
  return {
    ...(conf.interval !== undefined && { interval: goDurationToProtoJson(conf.interval) }),
    ...(conf.baseEjectionTime !== undefined && { base_ejection_time: goDurationToProtoJson(conf.baseEjectionTime) }),
    ...(conf.splitExternalAndLocalErrors !== undefined && { split_external_local_origin_errors: conf.splitExternalAndLocalErrors }),
    ...(conf.maxEjectionPercent !== undefined && { max_ejection_percent: conf.maxEjectionPercent }),
    ...consecutive('consecutive_5xx', 'enforcing_consecutive_5xx', totalFailures?.consecutive),
    ...consecutive('consecutive_local_origin_failure', 'enforcing_consecutive_local_origin_failure', localOriginFailures?.consecutive),
    ...consecutive('consecutive_gateway_failure', 'enforcing_consecutive_gateway_failure', gatewayFailures?.consecutive),
    ...(detectors !== undefined &&
      (successRate === undefined
        ? { enforcing_success_rate: NOT_ENFORCED, enforcing_local_origin_success_rate: NOT_ENFORCED }
        : {
            enforcing_success_rate: ENFORCED,
            enforcing_local_origin_success_rate: ENFORCED,
            ...(successRate.minimumHosts !== undefined && { success_rate_minimum_hosts: successRate.minimumHosts }),
            ...(successRate.requestVolume !== undefined && { success_rate_request_volume: successRate.requestVolume }),
            ...(successRate.standardDeviationFactor !== undefined && {
              success_rate_stdev_factor: thousandths(successRate.standardDeviationFactor),
            }),
          })),
    ...(detectors !== undefined &&
      (failurePercentage === undefined
        ? { enforcing_failure_percentage: NOT_ENFORCED, enforcing_failure_percentage_local_origin: NOT_ENFORCED }
        : {
            enforcing_failure_percentage: ENFORCED,
            enforcing_failure_percentage_local_origin: ENFORCED,
            ...(failurePercentage.minimumHosts !== undefined && { failure_percentage_minimum_hosts: failurePercentage.minimumHosts }),
            ...(failurePercentage.requestVolume !== undefined && { failure_percentage_request_volume: failurePercentage.requestVolume }),
            ...(failurePercentage.threshold !== undefined && { failure_percentage_threshold: failurePercentage.threshold }),
          })),
  };
}

/**
 * Envoy reads the success rate's standard deviation factor in thousandths: Kuma multiplies the
 * decimal by 1000 and drops the rest, exactly ("1.9" → 1900, where 1.9 × 1000 in floating point is 1899.99…).
 */
export function thousandths(value: number | string): number {
  const text = String(value).trim();
  const plain = /^([-+]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (plain === null) return Math.trunc(Number(text) * 1000);
  const [, sign, whole, fraction = ''] = plain;
  const magnitude = Number(whole || '0') * 1000 + Number(fraction.padEnd(3, '0').slice(0, 3));
  return sign === '-' ? -magnitude : magnitude;
}

/** The healthy panic threshold as Envoy's Percent (Kuma's envoyPercent: the decimal as a float). */
export function healthyPanicThreshold(value: number | string): ProtoJson {
  return { value: decimalFromIntOrString(value) ?? 0 };
}
