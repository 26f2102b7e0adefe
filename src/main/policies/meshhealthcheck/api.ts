// MeshHealthCheck's `default` conf (Kuma's pkg/plugins/policies/meshhealthcheck/api/v1alpha1/meshhealthcheck.go).
// Durations are Go duration strings ("10s"); an IntOrString is a number or a decimal string.

export interface MeshHealthCheckConf {
  interval?: string;
  timeout?: string;
  unhealthyThreshold?: number;
  healthyThreshold?: number;
  initialJitter?: string;
  intervalJitter?: string;
  intervalJitterPercent?: number;
  healthyPanicThreshold?: number | string;
  failTrafficOnPanic?: boolean;
  eventLogPath?: string;
  alwaysLogHealthCheckFailures?: boolean;
  noTrafficInterval?: string;
  tcp?: TcpHealthCheck;
  http?: HttpHealthCheck;
  grpc?: GrpcHealthCheck;
  reuseConnection?: boolean;
}

export interface TcpHealthCheck {
  disabled?: boolean;
  /** Sent as given: its bytes are hex-encoded, not decoded from base64. */
  send?: string;
  receive?: string[];
}

export interface HttpHealthCheck {
  disabled?: boolean;
  path?: string;
  requestHeadersToAdd?: HeaderModifier;
  expectedStatuses?: number[];
}

export interface GrpcHealthCheck {
  disabled?: boolean;
  serviceName?: string;
  authority?: string;
}

export interface HeaderKeyValue {
  name: string;
  value: string;
}

export interface HeaderModifier {
  set?: HeaderKeyValue[];
  add?: HeaderKeyValue[];
}
