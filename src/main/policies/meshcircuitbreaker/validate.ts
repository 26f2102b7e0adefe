import type { ViolationList } from '../../resources/validation-error.js';
import {
  GREATER_THAN_ZERO,
  MUST_BE_DEFINED,
  checkDurationGreaterThanZero,
  checkIntPercentage,
  checkIntegerGreaterThanZero,
  checkPercentage,
  decimalFromIntOrString,
  mustHaveAtLeastOne,
} from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import type { ConnectionLimits, MeshCircuitBreakerConf, OutlierDetection } from './api.js';
import { thousandths } from './outlier-detection.js';

/**
 * MeshCircuitBreaker's `default` confs, as Kuma's validator checks them
 * (meshcircuitbreaker/api/v1alpha1/validator.go), in its order: rules, from, to. Kuma roots a
 * rule's violations at `spec.from[i]` (its validateRules reuses from's path), and so does meshdesk.
 */
export function validateMeshCircuitBreaker(spec: PolicySpec<MeshCircuitBreakerConf>, violations: ViolationList): void {
  spec.rules?.forEach((rule, index) => validateDefault(violations, `spec.from[${index}].default`, rule.default));
  spec.from?.forEach((item, index) => validateDefault(violations, `spec.from[${index}].default`, item.default));
  spec.to?.forEach((item, index) => validateDefault(violations, `spec.to[${index}].default`, item.default));
}

function validateDefault(violations: ViolationList, path: string, conf: MeshCircuitBreakerConf | undefined): void {
  const { connectionLimits, outlierDetection } = conf ?? {};
  if (connectionLimits === undefined && outlierDetection === undefined) {
    violations.add(path, "at least one of: 'connectionLimits' or 'outlierDetection' should be configured");
    return;
  }
  if (connectionLimits !== undefined) validateConnectionLimits(violations, `${path}.connectionLimits`, connectionLimits);
  if (outlierDetection !== undefined) validateOutlierDetection(violations, `${path}.outlierDetection`, outlierDetection);
}

function validateConnectionLimits(violations: ViolationList, path: string, limits: ConnectionLimits): void {
  for (const field of ['maxConnections', 'maxConnectionPools', 'maxPendingRequests', 'maxRetries', 'maxRequests'] as const) {
    checkIntegerGreaterThanZero(limits[field], `${path}.${field}`, violations);
  }
}

function validateOutlierDetection(violations: ViolationList, path: string, outlierDetection: OutlierDetection): void {
  checkDurationGreaterThanZero(outlierDetection.interval, `${path}.interval`, violations);
  checkDurationGreaterThanZero(outlierDetection.baseEjectionTime, `${path}.baseEjectionTime`, violations);
  checkIntPercentage(outlierDetection.maxEjectionPercent, `${path}.maxEjectionPercent`, violations);
  checkPercentage(outlierDetection.healthyPanicThreshold, `${path}.healthyPanicThreshold`, violations);

  const detectorsPath = `${path}.detectors`;
  const { detectors } = outlierDetection;
  if (detectors === undefined) {
    violations.add(detectorsPath, MUST_BE_DEFINED);
    return;
  }
  const { totalFailures, gatewayFailures, localOriginFailures, successRate, failurePercentage } = detectors;
  if ([totalFailures, gatewayFailures, localOriginFailures, successRate, failurePercentage].every((detector) => detector === undefined)) {
    violations.add(detectorsPath, mustHaveAtLeastOne('totalFailures', 'gatewayFailures', 'localOriginFailures', 'successRate', 'failurePercentage'));
    return;
  }
  checkIntegerGreaterThanZero(totalFailures?.consecutive, `${detectorsPath}.totalFailures.consecutive`, violations);
  checkIntegerGreaterThanZero(gatewayFailures?.consecutive, `${detectorsPath}.gatewayFailures.consecutive`, violations);
  checkIntegerGreaterThanZero(localOriginFailures?.consecutive, `${detectorsPath}.localOriginFailures.consecutive`, violations);
  if (successRate !== undefined) {
    const at = `${detectorsPath}.successRate`;
    checkIntegerGreaterThanZero(successRate.minimumHosts, `${at}.minimumHosts`, violations);
    checkIntegerGreaterThanZero(successRate.requestVolume, `${at}.requestVolume`, violations);
    if (successRate.standardDeviationFactor !== undefined) {
      const factor = decimalFromIntOrString(successRate.standardDeviationFactor);
      if (factor === undefined) violations.add(`${at}.standardDeviationFactor`, 'invalid number');
      else if (factor <= 0) violations.add(`${at}.standardDeviationFactor`, GREATER_THAN_ZERO);
      // Envoy's success_rate_stdev_factor is the factor in thousandths, a uint32.
      else if (thousandths(successRate.standardDeviationFactor) > 0xffff_ffff) {
        violations.add(`${at}.standardDeviationFactor`, "must be at most 4294967.295: Envoy's success_rate_stdev_factor holds it in thousandths, a uint32");
      }
    }
  }
  if (failurePercentage !== undefined) {
    const at = `${detectorsPath}.failurePercentage`;
    checkIntegerGreaterThanZero(failurePercentage.minimumHosts, `${at}.minimumHosts`, violations);
    checkIntegerGreaterThanZero(failurePercentage.requestVolume, `${at}.requestVolume`, violations);
    checkIntPercentage(failurePercentage.threshold, `${at}.threshold`, violations);
  }
}
