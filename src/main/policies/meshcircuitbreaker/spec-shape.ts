import { defaultsIn, object, type SpecShape } from '../core/spec-shape.js';
import { servedDuration, servedInteger } from '../core/served-value.js';

const THRESHOLDS = 'envoy.config.cluster.v3.CircuitBreakers.Thresholds';
const OUTLIER_DETECTION = 'envoy.config.cluster.v3.OutlierDetection';

const consecutive = (envoyField: string) => object({ consecutive: servedInteger('uint32', `${OUTLIER_DETECTION}.${envoyField}`) });

/** Kuma's MeshCircuitBreaker schema (rest.yaml): the `default` of each `to`, `from` and `rules` item. */
export const meshCircuitBreakerSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    connectionLimits: object({
      maxConnections: servedInteger('uint32', `${THRESHOLDS}.max_connections`),
      maxConnectionPools: servedInteger('uint32', `${THRESHOLDS}.max_connection_pools`),
      maxPendingRequests: servedInteger('uint32', `${THRESHOLDS}.max_pending_requests`),
      maxRetries: servedInteger('uint32', `${THRESHOLDS}.max_retries`),
      maxRequests: servedInteger('uint32', `${THRESHOLDS}.max_requests`),
    }),
    outlierDetection: object({
      disabled: 'boolean',
      interval: servedDuration(`${OUTLIER_DETECTION}.interval`),
      baseEjectionTime: servedDuration(`${OUTLIER_DETECTION}.base_ejection_time`),
      maxEjectionPercent: servedInteger('uint32', `${OUTLIER_DETECTION}.max_ejection_percent`),
      splitExternalAndLocalErrors: 'boolean',
      detectors: object({
        totalFailures: consecutive('consecutive_5xx'),
        gatewayFailures: consecutive('consecutive_gateway_failure'),
        localOriginFailures: consecutive('consecutive_local_origin_failure'),
        successRate: object({
          minimumHosts: servedInteger('uint32', `${OUTLIER_DETECTION}.success_rate_minimum_hosts`),
          requestVolume: servedInteger('uint32', `${OUTLIER_DETECTION}.success_rate_request_volume`),
          standardDeviationFactor: 'int-or-string',
        }),
        failurePercentage: object({
          minimumHosts: servedInteger('uint32', `${OUTLIER_DETECTION}.failure_percentage_minimum_hosts`),
          requestVolume: servedInteger('uint32', `${OUTLIER_DETECTION}.failure_percentage_request_volume`),
          threshold: servedInteger('uint32', `${OUTLIER_DETECTION}.failure_percentage_threshold`),
        }),
      }),
      healthyPanicThreshold: 'int-or-string',
    }),
  }),
);
