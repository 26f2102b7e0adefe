import { defaultsIn, object, type SpecShape } from '../core/spec-shape.js';

const consecutive = object({ consecutive: 'integer' });

/** Kuma's MeshCircuitBreaker schema (rest.yaml): the `default` of each `to`, `from` and `rules` item. */
export const meshCircuitBreakerSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    connectionLimits: object({
      maxConnections: 'integer',
      maxConnectionPools: 'integer',
      maxPendingRequests: 'integer',
      maxRetries: 'integer',
      maxRequests: 'integer',
    }),
    outlierDetection: object({
      disabled: 'boolean',
      interval: 'string',
      baseEjectionTime: 'string',
      maxEjectionPercent: 'integer',
      splitExternalAndLocalErrors: 'boolean',
      detectors: object({
        totalFailures: consecutive,
        gatewayFailures: consecutive,
        localOriginFailures: consecutive,
        successRate: object({ minimumHosts: 'integer', requestVolume: 'integer', standardDeviationFactor: 'int-or-string' }),
        failurePercentage: object({ minimumHosts: 'integer', requestVolume: 'integer', threshold: 'integer' }),
      }),
      healthyPanicThreshold: 'int-or-string',
    }),
  }),
);
