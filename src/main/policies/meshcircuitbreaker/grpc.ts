import { SERVICE_TAG } from '../../../shared/resources.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { Draft } from '../core/draft.js';
import type { PluginInput } from '../core/plugin.js';
import { serviceClusterNames } from '../core/outbound-targets.js';
import { destinationTags } from '../core/proxy-sides.js';
import { ruleFor, type InboundRule, type Rule } from '../core/rules.js';
import { keyOf, putEdited, type FieldsSet } from '../core/shared-edits.js';
import { reportUnapplied } from '../core/unapplied.js';
import type { MeshCircuitBreakerConf } from './api.js';
import { envoyOutlierDetection } from './outlier-detection.js';

type Conf = MeshCircuitBreakerConf;

/** The OutlierDetection fields gRPC reads (gRFC A50): success-rate and failure-percentage ejection. */
const GRPC_OUTLIER_DETECTION_FIELDS = [
  'interval',
  'base_ejection_time',
  'max_ejection_percent',
  'enforcing_success_rate',
  'success_rate_minimum_hosts',
  'success_rate_request_volume',
  'success_rate_stdev_factor',
  'enforcing_failure_percentage',
  'failure_percentage_minimum_hosts',
  'failure_percentage_request_volume',
  'failure_percentage_threshold',
];

/** A conf field gRPC does not read, and why (gRFC A32, A50). */
interface Unreadable {
  field: string;
  isSet(conf: Conf): boolean;
  reason: string;
}

const enabled = (conf: Conf) => conf.outlierDetection !== undefined && conf.outlierDetection.disabled !== true;
const NOT_IN_GRPC: readonly Unreadable[] = [
  ...(['maxConnections', 'maxConnectionPools', 'maxPendingRequests', 'maxRetries'] as const).map((field) => ({
    field: `connectionLimits.${field}`,
    isSet: (conf: Conf) => conf.connectionLimits?.[field] !== undefined,
    reason: 'gRPC reads only max_requests from circuit_breakers (gRFC A32)',
  })),
  ...(['totalFailures', 'gatewayFailures', 'localOriginFailures'] as const).map((field) => ({
    field: `outlierDetection.detectors.${field}`,
    isSet: (conf: Conf) => enabled(conf) && conf.outlierDetection?.detectors?.[field] !== undefined,
    reason: 'gRPC ejects by success rate and failure percentage only, not by consecutive failures (gRFC A50)',
  })),
  {
    field: 'outlierDetection.splitExternalAndLocalErrors',
    isSet: (conf) => enabled(conf) && conf.outlierDetection?.splitExternalAndLocalErrors !== undefined,
    reason: 'gRPC does not tell local-origin failures apart (gRFC A50)',
  },
  {
    field: 'outlierDetection.healthyPanicThreshold',
    isSet: (conf) => enabled(conf) && conf.outlierDetection?.healthyPanicThreshold !== undefined,
    reason: "gRPC's xDS client reads no healthy panic threshold (gRFC A27)",
  },
];
const NO_INBOUND = 'meshdesk sends a proxyless gRPC proxy no inbound (server-side) configuration';

/**
 * MeshCircuitBreaker for proxyless gRPC, as gRPC implements it: the DEFAULT threshold's
 * `max_requests` (gRFC A32) and outlier detection by success rate and failure percentage (gRFC
 * A50), on the service's cluster. What Kuma writes for Envoy is filtered down to what gRPC reads,
 * so that both eject on the same terms (with `detectors` but no successRate, Kuma writes
 * enforcing_success_rate 0, which gRPC, like Envoy, needs to leave success rate off). Every other
 * gRPC cluster gets outlier detection that ejects nothing (NO_EJECTION), for grpc-js-xds.
 */
export function applyMeshCircuitBreakerToGrpc(input: PluginInput<Conf>): void {
  const { proxy, rules, resources } = input;
  const reported = new Set<Rule<Conf>>();
  const clusters = serviceClusterNames(resources);
  for (const outbound of proxy.dataplane.spec.networking.outbound ?? []) {
    const service = outbound.tags?.[SERVICE_TAG];
    if (service === undefined) continue;
    const rule = ruleFor(rules.to, destinationTags(service));
    if (rule !== undefined && !reported.has(rule)) {
      for (const { field, isSet, reason } of NOT_IN_GRPC) if (isSet(rule.conf)) reportUnapplied(input, rule.origins, field, reason);
      reported.add(rule);
    }
    // The service's cluster and its split clusters (a route's weighted subsets), with or without a rule (NO_EJECTION).
    for (const name of clusters.get(service) ?? []) {
      putEdited(resources, CLUSTER_TYPE_URL, name, ['MeshCircuitBreaker gRPC cluster', keyOf(rule)], (cluster) => configureGrpcCluster(cluster, rule));
    }
  }
  for (const inboundRules of rules.inbound.values()) {
    for (const rule of inboundRules) reportInbound(input, rule);
  }
}

/** Every limit and the outlier detection a rule sets, none of which reaches an inbound of a gRPC proxy. */
function reportInbound(input: PluginInput<Conf>, rule: InboundRule<Conf>): void {
  const limits = Object.keys(rule.conf.connectionLimits ?? {}).map((field) => `connectionLimits.${field}`);
  for (const field of [...limits, ...(rule.conf.outlierDetection ? ['outlierDetection'] : [])]) {
    reportUnapplied(input, rule.origins, field, NO_INBOUND);
  }
}

/**
 * Outlier detection that ejects nothing (success rate off, no failure percentage), for a gRPC
 * cluster no rule gives any. grpc-js-xds 1.14 compares a cluster update with the one before over
 * the old update's keys only (deepEqual in build/src/xds-resource-type/xds-resource-type.js), and
 * the update of a cluster without outlier_detection has none of its keys: outlier detection added
 * later would compare equal and be dropped. From this form every key is there, so adding,
 * changing and removing ejection all reach it; C-core and grpc-js both run no ejection with it.
 */
const NO_EJECTION = { enforcing_success_rate: 0 };

/** The DEFAULT threshold's max_requests and the outlier detection gRPC reads, of Kuma's Envoy form; NO_EJECTION without one. */
function configureGrpcCluster(cluster: Draft, rule: Rule<Conf> | undefined): FieldsSet {
  const set: FieldsSet = [];
  const maxRequests = rule?.conf.connectionLimits?.maxRequests;
  if (rule !== undefined && maxRequests !== undefined) {
    cluster.circuit_breakers = { thresholds: [{ priority: 'DEFAULT', max_requests: maxRequests }] };
    set.push({ path: 'circuit_breakers.thresholds[0].max_requests', origins: rule.origins });
  }
  const outlierDetection = envoyOutlierDetection(rule?.conf.outlierDetection);
  if (rule !== undefined && outlierDetection !== undefined) {
    cluster.outlier_detection = Object.fromEntries(
      GRPC_OUTLIER_DETECTION_FIELDS.filter((field) => field in outlierDetection).map((field) => [field, outlierDetection[field]]),
    );
    set.push({ path: 'outlier_detection', origins: rule.origins });
  } else {
    cluster.outlier_detection = NO_EJECTION;
  }
  return set;
}
