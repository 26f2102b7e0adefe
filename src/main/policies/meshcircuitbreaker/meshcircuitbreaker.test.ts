import { describe, expect, it } from 'vitest';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { ViolationList } from '../../resources/validation-error.js';
import type { PolicySpec } from '../core/policy.js';
import { policyCases, policyValidationCases } from '../../../../test/kuma/support/policy-cases.js';
import { applyEnvoyToCase, expectPartsMatch, kumaJsonOf, type ComparedPart } from '../../../../test/kuma/support/policy-parts.js';
import type { KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import type { MeshCircuitBreakerConf } from './api.js';
import { thousandths } from './outlier-detection.js';
import { meshCircuitBreakerPlugin } from './plugin.js';

/** The parts of a golden Cluster MeshCircuitBreaker writes, whole: thresholds, outlier detection, the panic threshold. */
function breakerParts(file: string, golden: KumaJson, ours: KumaJson): ComparedPart[] {
  const panic = (cluster: KumaJson) => (cluster.commonLbConfig as KumaJson | undefined)?.healthyPanicThreshold;
  return [
    { name: `${file}: circuitBreakers`, kuma: golden.circuitBreakers, meshdesk: ours.circuitBreakers },
    { name: `${file}: outlierDetection`, kuma: golden.outlierDetection, meshdesk: ours.outlierDetection },
    { name: `${file}: commonLbConfig.healthyPanicThreshold`, kuma: panic(golden), meshdesk: panic(ours) },
  ];
}

describe('MeshCircuitBreaker on Envoy, against Kuma v2.14.3 golden cases', () => {
  for (const policyCase of policyCases('meshcircuitbreaker')) {
    it(`${policyCase.id} writes the golden's circuit breaker`, () => {
      const { resources } = applyEnvoyToCase(meshCircuitBreakerPlugin, policyCase);
      const parts = policyCase.json.goldens.flatMap(({ file }) => {
        const golden = policyCase.goldens.get(file)!;
        return breakerParts(file, golden, kumaJsonOf(resources, CLUSTER_TYPE_URL, String(golden.name)));
      });
      expectPartsMatch(policyCase, parts);
    });
  }

  it('writes every unconfigured detector as not enforced, and without detectors only the consecutive ones', () => {
    const policyCase = policyCases('meshcircuitbreaker').find(({ id }) => id.endsWith('/outbound-connection-limits-outlier-detection'))!;
    const withConf = (outlierDetection: MeshCircuitBreakerConf['outlierDetection']) => ({
      ...policyCase,
      json: { ...policyCase.json, rulesAsTested: { toRules: [{ subset: [], conf: { outlierDetection } }] } },
    });
    const outlierDetectionOf = (conf: MeshCircuitBreakerConf['outlierDetection']) =>
      kumaJsonOf(applyEnvoyToCase(meshCircuitBreakerPlugin, withConf(conf)).resources, CLUSTER_TYPE_URL, 'second-service').outlierDetection;
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

describe('MeshCircuitBreaker validation, against Kuma v2.14.3 validator cases', () => {
  // Every case: the violations in `default` confs are this plugin's; the others (targetRefs, to/from/rules) are the shared checks'.
  for (const { name, universalResource, expected } of policyValidationCases('meshcircuitbreaker')) {
    it(name, () => {
      const violations = new ViolationList();
      meshCircuitBreakerPlugin.validate(universalResource.spec as PolicySpec<MeshCircuitBreakerConf>, violations);
      expect(violations.violations).toEqual(expected === 'valid' ? [] : expected.filter(({ field }) => field.includes('.default')));
    });
  }
});
