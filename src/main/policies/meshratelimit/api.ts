// MeshRateLimit's conf (Kuma's api/v1alpha1/meshratelimit.go), in its universal JSON form.

export interface Rate {
  /** Requests or connections per interval. */
  num: number;
  /** A duration in Go's syntax (`10s`). */
  interval: string;
}

export interface HeaderKeyValue {
  name: string;
  value: string;
}

export interface LocalHTTP {
  disabled?: boolean;
  /** Replaced as a whole when confs merge (Kuma's non-mergeable struct). */
  requestRate?: Rate;
  onRateLimit?: { status?: number; headers?: { set?: HeaderKeyValue[]; add?: HeaderKeyValue[] } };
}

export interface LocalTCP {
  disabled?: boolean;
  /** Replaced as a whole when confs merge. */
  connectionRate?: Rate;
}

/** A `default` block: local (per-proxy) rate limits of the inbound's HTTP requests and TCP connections. */
export interface MeshRateLimitConf {
  local?: { http?: LocalHTTP; tcp?: LocalTCP };
}
