import { indexPath, fieldPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { checkBandwidth, checkDurationNotNegative, checkPercentage, checkStatusCode, isRecord, itemDefaults } from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import type { MeshFaultInjectionConf } from './api.js';

/**
 * The `default` confs of every `from`, `to` and `rules` item (Kuma's validateDefault). As in Kuma,
 * the index of a fault goes after the field: `http.abort[0].httpStatus`, not `http[0].abort…`.
 */
export function validateMeshFaultInjection(spec: PolicySpec<MeshFaultInjectionConf>, violations: ViolationList): void {
  for (const list of ['rules', 'from', 'to'] as const) {
    for (const { index, conf } of itemDefaults(spec[list])) checkConf(conf, fieldPath(indexPath(`spec.${list}`, index), 'default'), violations);
  }
}

function checkConf(conf: unknown, path: string, violations: ViolationList): void {
  const http = fieldPath(path, 'http');
  const faults: unknown[] = isRecord(conf) && Array.isArray(conf.http) ? conf.http : [];
  faults.forEach((fault, index) => {
    if (!isRecord(fault)) return;
    const { abort, delay, responseBandwidth } = fault;
    if (isRecord(abort)) {
      const at = indexPath(fieldPath(http, 'abort'), index);
      checkStatusCode(abort.httpStatus, fieldPath(at, 'httpStatus'), violations);
      checkPercentage(abort.percentage, fieldPath(at, 'percentage'), violations);
    }
    if (isRecord(delay)) {
      const at = indexPath(fieldPath(http, 'delay'), index);
      checkDurationNotNegative(delay.value, fieldPath(at, 'value'), violations);
      checkPercentage(delay.percentage, fieldPath(at, 'percentage'), violations);
    }
    if (isRecord(responseBandwidth)) {
      const at = indexPath(fieldPath(http, 'responseBandwidth'), index);
      checkBandwidth(responseBandwidth.limit, fieldPath(at, 'limit'), violations);
      checkPercentage(responseBandwidth.percentage, fieldPath(at, 'percentage'), violations);
    }
  });
}
