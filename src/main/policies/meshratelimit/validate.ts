import { fieldPath, indexPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { MUST_BE_DEFINED, checkDurationGreaterThan, checkIntegerGreaterThan, isRecord, itemDefaults, mustHaveAtLeastOne } from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import type { MeshRateLimitConf } from './api.js';

/**
 * The `default` confs of every `rules`, `from` and `to` item and what a rule's matches allow
 * (Kuma's validateRules/validateFrom/validateTo bodies, in that order). The targetRef and scope
 * checks are the shared validator's.
 */
export function validateMeshRateLimit(spec: PolicySpec<MeshRateLimitConf>, violations: ViolationList): void {
  for (const { index, item, conf } of itemDefaults(spec.rules)) {
    const path = indexPath('spec.rules', index);
    checkRuleMatches(Array.isArray(item.matches) ? item.matches : [], conf, path, violations);
    checkConf(conf, fieldPath(path, 'default'), violations);
  }
  for (const list of ['from', 'to'] as const) {
    for (const { index, conf } of itemDefaults(spec[list])) checkConf(conf, fieldPath(indexPath(`spec.${list}`, index), 'default'), violations);
  }
}

/**
 * Kuma's validateRuleMatches, less what the shared validator checks of every match (at least one
 * of spiffeID and sni, the spiffeID type): a TCP limit cannot depend on who calls.
 */
function checkRuleMatches(matches: readonly unknown[], conf: unknown, path: string, violations: ViolationList): void {
  const bySpiffeID = matches.some((match) => isRecord(match) && isRecord(match.spiffeID));
  if (bySpiffeID && isRecord(conf) && isRecord(conf.local) && conf.local.tcp !== undefined) {
    violations.add(fieldPath(fieldPath(fieldPath(path, 'default'), 'local'), 'tcp'), "can't be specified when matches contain spiffeID because this field cannot be conditioned on source identity");
  }
}

function checkConf(conf: unknown, path: string, violations: ViolationList): void {
  const local = fieldPath(path, 'local');
  if (!isRecord(conf) || !isRecord(conf.local)) {
    violations.add(local, MUST_BE_DEFINED);
    return;
  }
  const { http, tcp } = conf.local;
  if (http === undefined && tcp === undefined) violations.add(local, mustHaveAtLeastOne('tcp', 'http'));
  if (isRecord(http)) {
    const at = fieldPath(local, 'http');
    if (http.disabled === undefined && http.requestRate === undefined && http.onRateLimit === undefined) {
      violations.add(at, mustHaveAtLeastOne('disabled', 'requestRate', 'onRateLimit'));
    } else {
      if (isRecord(http.requestRate)) checkRate(http.requestRate, fieldPath(at, 'requestRate'), violations);
      if (isRecord(http.onRateLimit) && http.onRateLimit.status !== undefined) {
        checkIntegerGreaterThan(http.onRateLimit.status, 0, fieldPath(fieldPath(at, 'onRateLimit'), 'status'), violations);
      }
    }
  }
  if (isRecord(tcp)) {
    const at = fieldPath(local, 'tcp');
    if (tcp.disabled === undefined && tcp.connectionRate === undefined) violations.add(at, mustHaveAtLeastOne('disabled', 'connectionRate'));
    else if (isRecord(tcp.connectionRate)) checkRate(tcp.connectionRate, fieldPath(at, 'connectionRate'), violations);
  }
}

function checkRate(rate: Record<string, unknown>, path: string, violations: ViolationList): void {
  checkIntegerGreaterThan(rate.num, 0, fieldPath(path, 'num'), violations);
  checkDurationGreaterThan(rate.interval, 50, fieldPath(path, 'interval'), violations);
}
