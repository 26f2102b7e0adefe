import type { ViolationList } from '../../resources/validation-error.js';
import {
  HAS_TO_BE_GREATER_THAN_ZERO,
  MUST_BE_DEFINED,
  decimalFromIntOrString,
  durationGreaterThanZeroOrNil,
  integerGreaterThanZeroOrNil,
  mustHaveAtLeastOne,
  percentageOrNil,
  uint32PercentageOrNil,
} from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import type { ConnectionLimits, MeshCircuitBreakerConf, OutlierDetection } from './api.js';

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
    integerGreaterThanZeroOrNil(violations, `${path}.${field}`, limits[field]);
  }
}

function validateOutlierDetection(violations: ViolationList, path: string, outlierDetection: OutlierDetection): void {
  durationGreaterThanZeroOrNil(violations, `${path}.interval`, outlierDetection.interval);
  durationGreaterThanZeroOrNil(violations, `${path}.baseEjectionTime`, outlierDetection.baseEjectionTime);
  uint32PercentageOrNil(violations, `${path}.maxEjectionPercent`, outlierDetection.maxEjectionPercent);
  percentageOrNil(violations, `${path}.healthyPanicThreshold`, outlierDetection.healthyPanicThreshold);

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
  integerGreaterThanZeroOrNil(violations, `${detectorsPath}.totalFailures.consecutive`, totalFailures?.consecutive);
  integerGreaterThanZeroOrNil(violations, `${detectorsPath}.gatewayFailures.consecutive`, gatewayFailures?.consecutive);
  integerGreaterThanZeroOrNil(violations, `${detectorsPath}.localOriginFailures.consecutive`, localOriginFailures?.consecutive);
  if (successRate !== undefined) {
    const at = `${detectorsPath}.successRate`;
    integerGreaterThanZeroOrNil(violations, `${at}.minimumHosts`, successRate.minimumHosts);
    integerGreaterThanZeroOrNil(violations, `${at}.requestVolume`, successRate.requestVolume);
    if (successRate.standardDeviationFactor !== undefined) {
      const factor = decimalFromIntOrString(successRate.standardDeviationFactor);
      if (factor === undefined) violations.add(`${at}.standardDeviationFactor`, 'invalid number');
      else if (factor <= 0) violations.add(`${at}.standardDeviationFactor`, HAS_TO_BE_GREATER_THAN_ZERO);
    }
  }
  if (failurePercentage !== undefined) {
    const at = `${detectorsPath}.failurePercentage`;
    integerGreaterThanZeroOrNil(violations, `${at}.minimumHosts`, failurePercentage.minimumHosts);
    integerGreaterThanZeroOrNil(violations, `${at}.requestVolume`, failurePercentage.requestVolume);
    uint32PercentageOrNil(violations, `${at}.threshold`, failurePercentage.threshold);
  }
}
