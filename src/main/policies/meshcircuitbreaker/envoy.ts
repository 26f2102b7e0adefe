import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { Draft } from '../core/draft.js';
import { child } from '../core/listener-parts.js';
import type { PluginInput } from '../core/plugin.js';
import { serviceClusterNames } from '../core/outbound-targets.js';
import { destinationTags, inboundSides, outboundSides } from '../core/proxy-sides.js';
import { keyOf, putEdited, type FieldsSet } from '../core/shared-edits.js';
import { catchAllInboundRule, ruleFor } from '../core/rules.js';
import type { ConnectionLimits, MeshCircuitBreakerConf } from './api.js';
import { envoyOutlierDetection, healthyPanicThreshold } from './outlier-detection.js';

/** Kuma's connection limits and the Envoy threshold fields they set. */
const LIMIT_FIELDS: readonly [keyof ConnectionLimits, string][] = [
  ['maxConnectionPools', 'max_connection_pools'],
  ['maxConnections', 'max_connections'],
  ['maxPendingRequests', 'max_pending_requests'],
  ['maxRetries', 'max_retries'],
  ['maxRequests', 'max_requests'],
];

/**
 * Kuma's MeshCircuitBreaker plugin (meshcircuitbreaker/plugin/v1alpha1/plugin.go, plugin/xds/configurer.go):
 * every cluster tracks its remaining capacity, policy or not; an inbound's application cluster
 * takes its catch-all rule, an outbound service's clusters (split ones too) take the service's rule.
 */
export function applyMeshCircuitBreakerToEnvoy(input: PluginInput<MeshCircuitBreakerConf>): void {
  const { proxy, context, rules, resources } = input;
  for (const { name, resource } of resources.list(CLUSTER_TYPE_URL)) {
    if (tracksRemaining(resource)) continue;
    putEdited(resources, CLUSTER_TYPE_URL, name, ['MeshCircuitBreaker trackRemaining'], (cluster) => {
      defaultThreshold(cluster);
      return [];
    });
  }
  for (const side of inboundSides(proxy)) {
    const rule = catchAllInboundRule(rules.inbound.get(side.key));
    if (rule) putEdited(resources, CLUSTER_TYPE_URL, side.cluster, ['MeshCircuitBreaker cluster', keyOf(rule)], (cluster) => configureCluster(cluster, rule));
  }
  const clusters = serviceClusterNames(resources);
  for (const side of outboundSides(proxy, context)) {
    const rule = ruleFor(rules.to, destinationTags(side.service));
    if (rule === undefined) continue;
    for (const name of clusters.get(side.service) ?? []) {
      putEdited(resources, CLUSTER_TYPE_URL, name, ['MeshCircuitBreaker cluster', keyOf(rule)], (cluster) => configureCluster(cluster, rule));
    }
  }
}

function thresholds(cluster: ProtoJson): Draft[] {
  return ((cluster.circuit_breakers as Draft | undefined)?.thresholds as Draft[] | undefined) ?? [];
}

function isDefaultPriority(threshold: Draft): boolean {
  return threshold.priority === undefined || threshold.priority === 'DEFAULT';
}

function tracksRemaining(cluster: ProtoJson): boolean {
  return thresholds(cluster).some((threshold) => isDefaultPriority(threshold) && threshold.track_remaining === true);
}

/** Kuma's ensureDefaultThreshold: the cluster's DEFAULT-priority threshold (added when missing), tracking what remains. */
function defaultThreshold(cluster: Draft): { threshold: Draft; path: string } {
  const breakers = child(cluster, 'circuit_breakers');
  if (!Array.isArray(breakers.thresholds)) breakers.thresholds = [];
  const list = breakers.thresholds as Draft[];
  let index = list.findIndex(isDefaultPriority);
  if (index < 0) index = list.push({}) - 1;
  list[index]!.track_remaining = true;
  return { threshold: list[index]!, path: `circuit_breakers.thresholds[${index}]` };
}

/** Kuma's Configurer.ConfigureCluster: connection limits on the default threshold, then outlier detection and the panic threshold. */
function configureCluster(cluster: Draft, { conf, origins }: { conf: MeshCircuitBreakerConf; origins: readonly PolicyOrigin[] }): FieldsSet {
  const set: FieldsSet = [];
  const { threshold, path } = defaultThreshold(cluster);
  for (const [field, envoyField] of LIMIT_FIELDS) {
    const value = conf.connectionLimits?.[field];
    if (value === undefined) continue;
    threshold[envoyField] = value;
    set.push({ path: `${path}.${envoyField}`, origins });
  }
  const outlierDetection = envoyOutlierDetection(conf.outlierDetection);
  if (outlierDetection === undefined) return set;
  cluster.outlier_detection = outlierDetection;
  set.push({ path: 'outlier_detection', origins });
  const panicThreshold = conf.outlierDetection?.healthyPanicThreshold;
  if (panicThreshold === undefined) return set;
  child(cluster, 'common_lb_config').healthy_panic_threshold = healthyPanicThreshold(panicThreshold);
  return [...set, { path: 'common_lb_config.healthy_panic_threshold', origins }];
}
