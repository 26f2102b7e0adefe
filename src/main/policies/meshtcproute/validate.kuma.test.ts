// MeshTCPRoute's own checks against Kuma v2.14.3's validator table (validation.json): every case's
// violations in the `to` items' rules, the part this validator owns (targetRef checks are the
// shared validator's), as a set, as Kuma's test compares them.
import { describe, expect, it } from 'vitest';
import { policyValidationCases } from '../../../../test/kuma/support/policy-cases.js';
import { ViolationList } from '../../resources/validation-error.js';
import type { PolicySpec } from '../core/policy.js';
import type { MeshTCPRouteConf } from './api.js';
import { validateMeshTCPRoute } from './validate.js';

const OWN_FIELDS = /^spec\.to\[\d+\]\.rules\b/;
const byField = (a: { field: string; message: string }, b: { field: string; message: string }) =>
  `${a.field} ${a.message}`.localeCompare(`${b.field} ${b.message}`);

describe("MeshTCPRoute's validator, as Kuma v2.14.3's", () => {
  const cases = policyValidationCases('meshtcproute');

  it('reads the cases, some of which break rules of its own', () => {
    expect(cases.length).toBe(9);
    expect(cases.filter(({ expected }) => expected !== 'valid' && expected.some(({ field }) => OWN_FIELDS.test(field))).length).toBe(2);
  });

  for (const testCase of cases) {
    it(testCase.name, () => {
      const violations = new ViolationList();
      validateMeshTCPRoute(testCase.universalResource['spec'] as PolicySpec<MeshTCPRouteConf>, violations);
      const expected = testCase.expected === 'valid' ? [] : testCase.expected.filter(({ field }) => OWN_FIELDS.test(field));
      expect([...violations.violations].sort(byField)).toEqual([...expected].sort(byField));
    });
  }

  it('needs backendRefs in every rule', () => {
    const violations = new ViolationList();
    validateMeshTCPRoute({ to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, rules: [{ default: {} }] }] }, violations);
    expect(violations.violations).toEqual([{ field: 'spec.to[0].rules[0].default.backendRefs', message: 'must be defined' }]);
  });
});
