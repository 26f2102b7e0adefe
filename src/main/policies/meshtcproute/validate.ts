// MeshTCPRoute's own fields, checked as Kuma's validator.go checks them: every rule of every `to`
// item needs backendRefs, each a valid one. The targetRefs are the shared validator's.
import { fieldPath, indexPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { validateBackendRefs } from '../core/backend-ref.js';
import type { PolicySpec } from '../core/policy.js';
import type { MeshTCPRouteConf, TcpRouteRule } from './api.js';

export function validateMeshTCPRoute(spec: PolicySpec<MeshTCPRouteConf>, violations: ViolationList): void {
  (spec.to ?? []).forEach((to, index) => {
    ((to.rules ?? []) as TcpRouteRule[]).forEach((rule, ruleIndex) => {
      const path = fieldPath(fieldPath(indexPath(fieldPath(indexPath('spec.to', index), 'rules'), ruleIndex), 'default'), 'backendRefs');
      const backendRefs = rule.default?.backendRefs ?? [];
      if (backendRefs.length === 0) violations.add(path, 'must be defined');
      else validateBackendRefs(backendRefs, path, violations);
    });
  });
}
