/** A header condition (Kuma's common_api.HeaderMatch); an omitted type is Exact. */
export interface HeaderMatch {
  type?: 'Exact' | 'Prefix' | 'RegularExpression' | 'Present' | 'Absent';
  name: string;
  value?: string;
}

export interface BackOff {
  baseInterval?: string;
  maxInterval?: string;
}

export interface RateLimitedBackOff {
  resetHeaders?: { name: string; format: 'Seconds' | 'UnixTimestamp' }[];
  maxInterval?: string;
}

export interface Predicate {
  predicate: 'OmitPreviousHosts' | 'OmitHostsWithTags' | 'OmitPreviousPriorities';
  tags?: Record<string, string>;
  updateFrequency?: number;
}

/**
 * A MeshRetry `default` (Kuma's api/v1alpha1 Conf): one section per protocol of the destination.
 * Durations in Go's syntax; `retryOn` entries are Kuma's names (`GatewayError`, `HttpMethodGet`) or
 * HTTP status codes, which YAML may give as numbers.
 */
export interface MeshRetryConf {
  tcp?: { maxConnectAttempt?: number };
  http?: {
    numRetries?: number;
    perTryTimeout?: string;
    backOff?: BackOff;
    rateLimitedBackOff?: RateLimitedBackOff;
    retryOn?: (string | number)[];
    retriableResponseHeaders?: HeaderMatch[];
    retriableRequestHeaders?: HeaderMatch[];
    hostSelection?: Predicate[];
    hostSelectionMaxAttempts?: number;
  };
  grpc?: {
    numRetries?: number;
    perTryTimeout?: string;
    backOff?: BackOff;
    rateLimitedBackOff?: RateLimitedBackOff;
    retryOn?: (string | number)[];
  };
}

/** Kuma's HTTP retryOn names and Envoy's conditions (HttpRetryOnEnumToEnvoyValue); HttpMethod* become `:method` matchers. */
export const HTTP_RETRY_ON: { readonly [name: string]: string } = {
  '5xx': '5xx',
  GatewayError: 'gateway-error',
  Reset: 'reset',
  Retriable4xx: 'retriable-4xx',
  ConnectFailure: 'connect-failure',
  EnvoyRatelimited: 'envoy-ratelimited',
  RefusedStream: 'refused-stream',
  Http3PostConnectFailure: 'http3-post-connect-failure',
  HttpMethodConnect: 'CONNECT',
  HttpMethodDelete: 'DELETE',
  HttpMethodGet: 'GET',
  HttpMethodHead: 'HEAD',
  HttpMethodOptions: 'OPTIONS',
  HttpMethodPatch: 'PATCH',
  HttpMethodPost: 'POST',
  HttpMethodPut: 'PUT',
  HttpMethodTrace: 'TRACE',
};

export const HTTP_METHOD_PREFIX = 'HttpMethod';

/** Kuma's gRPC retryOn names and what Kuma writes for Envoy (GrpcRetryOnEnumToEnvoyValue). */
export const GRPC_RETRY_ON: { readonly [name: string]: string } = {
  Canceled: 'canceled',
  DeadlineExceeded: 'deadline-exceeded',
  Internal: 'internal',
  ResourceExhausted: 'resource-exhausted',
  Unavailable: 'unavailable',
};

/**
 * The status codes Go's http.StatusText knows: the numeric retryOn entries Kuma accepts and turns
 * into retriable status codes.
 */
const GO_STATUS_CODES = new Set([
  100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401, 402, 403,
  404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418, 421, 422, 423, 424, 425, 426, 428, 429, 431, 451, 500,
  501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
]);

/** The status code a retryOn entry names (`"429"`, `503`), or undefined (Kuma's Atoi + StatusText). */
export function retryOnStatusCode(entry: string | number): number | undefined {
  const text = String(entry);
  if (!/^[-+]?\d+$/.test(text)) return undefined;
  const code = Number(text);
  return GO_STATUS_CODES.has(code) ? code : undefined;
}
