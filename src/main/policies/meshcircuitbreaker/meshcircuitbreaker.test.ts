import { emptyProxyRules } from '../core/rules.js';
import { describe, expect, it } from 'vitest';
import { caseBaseResources, policyCases, policyValidationCases, rulesAsTested, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { explainDifferences, goldenDifferences, knownPolicyDifferences } from '../../../../test/kuma/support/policy-goldens.js';
import { toKumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import { ViolationList } from '../../resources/validation-error.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PolicySpec } from '../core/policy.js';
import { checkPolicySpec } from '../core/validate-policy.js';
import type { MeshCircuitBreakerConf } from './api.js';
import { thousandths } from './outlier-detection.js';
import { meshCircuitBreakerDescriptor } from './descriptor.js';
import { meshCircuitBreakerPlugin } from './plugin.js';

// Kuma v2.14.3's MeshCircuitBreaker plugin and validator cases (../shared/kuma-cases/policies/meshcircuitbreaker).

/** The parts of a cluster MeshCircuitBreaker writes, whole: thresholds, outlier detection, the panic threshold. */
const WRITTEN = ['circuitBreakers', 'outlierDetection', 'commonLbConfig'];

function applied(policyCase: PolicyCase) {
  const { proxy, context, resources } = caseBaseResources(policyCase);
  meshCircuitBreakerPlugin.applyEnvoy({ rulesOf: () => emptyProxyRules(), proxy, context, rules: rulesAsTested(policyCase), resources, unapplied: () => {} });
  return resources;
}

describe.skipIf(!kumaCasesPresent())('MeshCircuitBreaker on Envoy, against Kuma v2.14.3 golden cases', () => {
  const cases = policyCases('meshcircuitbreaker');
  const used = new Set<unknown>();

  it.each(cases.map((policyCase) => [policyCase.id, policyCase] as const))("%s writes the golden's circuit breaker", (id, policyCase) => {
    const resources = applied(policyCase);
    for (const { file } of policyCase.json.goldens) {
      const { unexplained, used: explaining } = explainDifferences(id, goldenDifferences(policyCase, file, CLUSTER_TYPE_URL, resources, WRITTEN));
      explaining.forEach((entry) => used.add(entry));
      expect(unexplained, file).toEqual([]);
    }
  });

  it('lists no known difference that no longer explains one', () => {
    expect(cases.flatMap(({ id }) => knownPolicyDifferences(id)).filter((entry) => !used.has(entry))).toEqual([]);
  });

  it('writes every unconfigured detector as not enforced, and without detectors only the consecutive ones', () => {
    const policyCase = cases.find(({ id }) => id.endsWith('/outbound-connection-limits-outlier-detection'))!;
    const withConf = (outlierDetection: MeshCircuitBreakerConf['outlierDetection']) => ({
      ...policyCase,
      json: { ...policyCase.json, rulesAsTested: { toRules: [{ subset: [], conf: { outlierDetection } }] } },
    });
    const outlierDetectionOf = (conf: MeshCircuitBreakerConf['outlierDetection']) =>
      toKumaJson(CLUSTER_TYPE_URL, applied(withConf(conf)).get(CLUSTER_TYPE_URL, 'second-service')!).outlierDetection;
    expect(outlierDetectionOf({ detectors: { totalFailures: { consecutive: 3 } } })).toEqual({
      consecutive5xx: 3,
      enforcingConsecutive5xx: 100,
      enforcingConsecutiveGatewayFailure: 0,
      enforcingConsecutiveLocalOriginFailure: 0,
      enforcingSuccessRate: 0,
      enforcingLocalOriginSuccessRate: 0,
      enforcingFailurePercentage: 0,
      enforcingFailurePercentageLocalOrigin: 0,
    });
    expect(outlierDetectionOf({ interval: '5s' })).toEqual({
      interval: '5s',
      enforcingConsecutive5xx: 0,
      enforcingConsecutiveGatewayFailure: 0,
      enforcingConsecutiveLocalOriginFailure: 0,
    });
  });

  it('multiplies the standard deviation factor by 1000 exactly, as a decimal', () => {
    expect([thousandths('1.9'), thousandths(1900), thousandths('0.0015'), thousandths('2')]).toEqual([1900, 1900000, 1, 2000]);
  });
});

describe.skipIf(!kumaCasesPresent())('MeshCircuitBreaker validation, against Kuma v2.14.3 validator cases', () => {
  // Every case: the violations in `default` confs are this plugin's; the others (targetRefs, to/from/rules) are the shared checks'.
  for (const { name, universalResource, expected } of policyValidationCases('meshcircuitbreaker')) {
    it(name, () => {
      const violations = new ViolationList();
      meshCircuitBreakerPlugin.validate(universalResource.spec as PolicySpec<MeshCircuitBreakerConf>, violations);
      expect(violations.violations).toEqual(expected === 'valid' ? [] : expected.filter(({ field }) => field.includes('.default')));
    });
  }

  it("names a field of another JSON type, as Kuma's schema check does, and reads a null one as absent, before its validator reads them", () => {
    const violations = new ViolationList();
    const conf = { connectionLimits: { maxConnections: '2' }, outlierDetection: { disabled: 'yes', detectors: { successRate: { standardDeviationFactor: true } } } };
    checkPolicySpec(meshCircuitBreakerDescriptor, { to: [{ targetRef: { kind: 'Mesh' }, default: conf }] }, violations);
    expect(violations.violations).toEqual([
      { field: 'spec.to[0].default.connectionLimits.maxConnections', message: 'in body must be of type integer: "string"' },
      { field: 'spec.to[0].default.outlierDetection.disabled', message: 'in body must be of type boolean: "string"' },
      { field: 'spec.to[0].default.outlierDetection.detectors.successRate.standardDeviationFactor', message: 'in body must be of type string: "boolean"' },
    ]);
    const nulls = new ViolationList();
    const nullConf = { connectionLimits: null, outlierDetection: { detectors: { totalFailures: null, successRate: null } } };
    checkPolicySpec(meshCircuitBreakerDescriptor, { to: [{ targetRef: { kind: 'Mesh' }, default: nullConf }] }, nulls);
    expect(nulls.violations).toEqual([
      {
        field: 'spec.to[0].default.outlierDetection.detectors',
        message: 'must have at least one defined: totalFailures, gatewayFailures, localOriginFailures, successRate, failurePercentage',
      },
    ]);
  });
});
