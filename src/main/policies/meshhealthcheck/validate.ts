import { fieldPath, indexPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import {
  checkDurationGreaterThanZero,
  checkFilePath,
  checkIntPercentage,
  checkPercentage,
  checkStatusCode,
  checkStringDefined,
  checkValueGreaterThanZero,
  listItems,
  mustHaveAtLeastOne,
} from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import type { MeshHealthCheckConf } from './api.js';

/** Kuma's MeshHealthCheck validateDefault for every `to` item, in Kuma's order and with its paths and messages. */
export function validateMeshHealthCheck(spec: PolicySpec<MeshHealthCheckConf>, violations: ViolationList): void {
  (spec.to ?? []).forEach((item, index) => validateDefault(item.default ?? {}, `spec.to[${index}].default`, violations));
}

function validateDefault(conf: MeshHealthCheckConf, path: string, violations: ViolationList): void {
  const at = (field: string) => fieldPath(path, field);
  checkDurationGreaterThanZero(conf.interval, at('interval'), violations);
  checkDurationGreaterThanZero(conf.timeout, at('timeout'), violations);
  checkValueGreaterThanZero(conf.unhealthyThreshold, at('unhealthyThreshold'), violations);
  checkValueGreaterThanZero(conf.healthyThreshold, at('healthyThreshold'), violations);
  checkDurationGreaterThanZero(conf.initialJitter, at('initialJitter'), violations);
  checkDurationGreaterThanZero(conf.intervalJitter, at('intervalJitter'), violations);
  checkIntPercentage(conf.intervalJitterPercent, at('intervalJitterPercent'), violations);
  checkPercentage(conf.healthyPanicThreshold, at('healthyPanicThreshold'), violations);
  checkDurationGreaterThanZero(conf.noTrafficInterval, at('noTrafficInterval'), violations);
  checkFilePath(conf.eventLogPath, at('eventLogPath'), violations);
  if (conf.http) {
    const http = at('http');
    if (conf.http.path !== undefined) checkStringDefined(conf.http.path, fieldPath(http, 'path'), violations);
    listItems(conf.http.expectedStatuses).forEach((status, index) =>
      checkStatusCode(status, indexPath(fieldPath(http, 'expectedStatuses'), index), violations),
    );
  }
  if (!conf.http && !conf.tcp && !conf.grpc) violations.add(path, mustHaveAtLeastOne('http', 'tcp', 'grpc'));
}
