// MeshHTTPRoute's own checks against Kuma v2.14.3's validator table (validation.json): every case's
// violations in the `to` items' rules and hostnames, the part this validator owns (the targetRef
// checks are the shared validator's), as a set, as Kuma's test compares them.
import { describe, expect, it } from 'vitest';
import { policyValidationCases } from '../../../../test/kuma/support/policy-cases.js';
import { ViolationList } from '../../resources/validation-error.js';
import type { PolicySpec } from '../core/policy.js';
import type { HttpFilter, MeshHTTPRouteConf } from './api.js';
import { validateMeshHTTPRoute } from './validate.js';

const OWN_FIELDS = /^spec\.to\[\d+\]\.(rules|hostnames)\b/;
const byField = (a: { field: string; message: string }, b: { field: string; message: string }) =>
  `${a.field} ${a.message}`.localeCompare(`${b.field} ${b.message}`);

describe("MeshHTTPRoute's validator, as Kuma v2.14.3's", () => {
  const cases = policyValidationCases('meshhttproute');

  it('reads the cases, some of which break rules of its own', () => {
    expect(cases.length).toBe(15);
    expect(cases.filter(({ expected }) => expected !== 'valid' && expected.some(({ field }) => OWN_FIELDS.test(field))).length).toBe(9);
  });

  for (const testCase of cases) {
    it(testCase.name, () => {
      const violations = new ViolationList();
      validateMeshHTTPRoute(testCase.universalResource['spec'] as PolicySpec<MeshHTTPRouteConf>, violations);
      const expected = testCase.expected === 'valid' ? [] : testCase.expected.filter(({ field }) => OWN_FIELDS.test(field));
      expect([...violations.violations].sort(byField)).toEqual([...expected].sort(byField));
    });
  }

  it("reads a request mirror without backendRef as Go's zero value: a backendRef without kind", () => {
    const violations = new ViolationList();
    const filters = [{ type: 'RequestMirror' as const, requestMirror: {} as NonNullable<HttpFilter['requestMirror']> }];
    validateMeshHTTPRoute({ to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, rules: [{ default: { filters } }] }] }, violations);
    expect(violations.violations).toEqual([{ field: 'spec.to[0].rules[0].default.filters[0].requestMirror.backendRef.kind', message: 'must be defined' }]);
  });
});
