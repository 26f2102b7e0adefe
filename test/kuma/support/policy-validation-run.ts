// Runs Kuma's policy validator cases (../shared/kuma-cases/policies/*/validation.json) through meshdesk's
// resource validation, as the API does, and compares the decision, the field paths and the messages.
import fs from 'node:fs';
import path from 'node:path';
import type { Violation } from '../../../src/shared/resources.js';
import { POLICY_PLUGINS } from '../../../src/main/policies/registry.js';
import { validateResource } from '../../../src/main/resources/validate.js';
import { ValidationError } from '../../../src/main/resources/validation-error.js';
import { POLICY_CASES_DIR, policyValidationCases } from './policy-cases.js';

export interface PolicyValidationRun {
  id: string;
  accepted: boolean;
  violations: Violation[];
  /** What Kuma says, less what only the policy's own validate can say while its plugin is not registered. */
  expected: Violation[];
  /** Some expected violation is about the policy's own conf, and no plugin for the type is registered yet. */
  needsPlugin: boolean;
  matches: boolean;
}

/**
 * A violation about the policy's own conf, which its plugin's `validate` checks: anything under a
 * `default`, a route's `to[].rules`/`hostnames`, an inbound rule's conf (`rules[i]` but its `matches`).
 */
const CONF_FIELD = /\.default(\.|\[|$)|^spec\.to\[\d+\]\.(rules|hostnames)|^spec\.rules\[\d+\](?!\.matches)/;

export function policyValidationFolders(): string[] {
  return fs
    .readdirSync(POLICY_CASES_DIR)
    .filter((name) => fs.existsSync(path.join(POLICY_CASES_DIR, name, 'validation.json')))
    .sort();
}

export function runPolicyValidationCases(folder: string): PolicyValidationRun[] {
  return policyValidationCases(folder).map((testCase, index) => {
    const resource = testCase.universalResource as { type: string };
    const hasPlugin = POLICY_PLUGINS.some((plugin) => plugin.descriptor.type === resource.type);
    const kuma = testCase.expected === 'valid' ? [] : testCase.expected;
    const expected = hasPlugin ? kuma : kuma.filter(({ field }) => !CONF_FIELD.test(field));
    let violations: Violation[] = [];
    try {
      validateResource(resource);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      violations = error.violations;
    }
    const ordered = (list: Violation[]) =>
      testCase.violationOrderMatters ? list : [...list].sort((a, b) => (a.field + a.message).localeCompare(b.field + b.message));
    return {
      id: `${folder}[${index}]: ${testCase.name}`,
      accepted: violations.length === 0,
      violations: ordered(violations),
      expected: ordered(expected),
      needsPlugin: expected.length !== kuma.length,
      matches: JSON.stringify(ordered(violations)) === JSON.stringify(ordered(expected)),
    };
  });
}
