import type { ViolationList } from '../../resources/validation-error.js';
import { checkList, isRecord, itemDefaults, MUST_BE_DEFINED } from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import { checkMatch, readRuleMatch } from '../core/rule-match.js';
import { TRAFFIC_ACTIONS, type MeshTrafficPermissionConf } from './api.js';

/** A rule's caller lists, in the order Kuma's validator checks them. */
const RULE_LISTS = ['allow', 'allowWithShadowDeny', 'deny'] as const;

/**
 * MeshTrafficPermission's confs, as Kuma's validator checks them (meshtrafficpermission/api/v1alpha1/
 * validator.go), in its order: every rule (one list at least; each match as Kuma's ValidateMatch),
 * then every `from` item's action. The shared checks did the targetRefs and the sections.
 */
export function validateMeshTrafficPermission(spec: PolicySpec<MeshTrafficPermissionConf>, violations: ViolationList): void {
  for (const { index, conf } of itemDefaults(spec.rules)) {
    const path = `spec.rules[${index}]`;
    const lists = RULE_LISTS.map((field) => ({ field, matches: checkList(isRecord(conf) ? (conf[field] as unknown[]) : undefined, `${path}.default.${field}`, violations) }));
    if (lists.every(({ matches }) => matches.length === 0)) violations.add(path, "at least one of 'allow', 'allowWithShadowDeny', 'deny' has to be defined");
    for (const { field, matches } of lists) {
      matches.forEach((value, matchIndex) => {
        // Kuma reports these at `rules[i].<list>[j]`, without `default`.
        const matchPath = `${path}.${field}[${matchIndex}]`;
        const match = readRuleMatch(value, matchPath, violations);
        if (match) checkMatch(match, matchPath, violations);
      });
    }
  }
  for (const { index, conf } of itemDefaults(spec.from)) {
    const path = `spec.from[${index}].default.action`;
    const action = isRecord(conf) ? conf.action : undefined;
    if (action === undefined || action === null || action === '') violations.add(path, MUST_BE_DEFINED);
    // Not Kuma's validator: its schema refuses an action outside the enum, with kube-openapi's message.
    else if (!TRAFFIC_ACTIONS.includes(action as never)) violations.add(path, `in body should be one of [${TRAFFIC_ACTIONS.join(' ')}]`);
  }
}
