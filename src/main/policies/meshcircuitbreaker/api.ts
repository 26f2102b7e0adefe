/**
 * A MeshCircuitBreaker `default` (Kuma's api/v1alpha1 Conf). `standardDeviationFactor` and
 * `healthyPanicThreshold` are int-or-string decimals (`1900`, `"1.9"`, `"30.2"`).
 */
export interface MeshCircuitBreakerConf {
  connectionLimits?: {
    maxConnections?: number;
    maxConnectionPools?: number;
    maxPendingRequests?: number;
    maxRetries?: number;
    maxRequests?: number;
  };
  outlierDetection?: {
    disabled?: boolean;
    interval?: string;
    baseEjectionTime?: string;
    maxEjectionPercent?: number;
    splitExternalAndLocalErrors?: boolean;
    detectors?: {
      totalFailures?: { consecutive?: number };
      gatewayFailures?: { consecutive?: number };
      localOriginFailures?: { consecutive?: number };
      successRate?: { minimumHosts?: number; requestVolume?: number; standardDeviationFactor?: number | string };
      failurePercentage?: { minimumHosts?: number; requestVolume?: number; threshold?: number };
    };
    healthyPanicThreshold?: number | string;
  };
}

export type ConnectionLimits = NonNullable<MeshCircuitBreakerConf['connectionLimits']>;
export type OutlierDetection = NonNullable<MeshCircuitBreakerConf['outlierDetection']>;
