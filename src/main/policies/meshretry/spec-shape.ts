import { defaultsIn, headerName, list, map, object, type SpecShape } from '../core/spec-shape.js';
import { servedDuration, servedInteger } from '../core/served-value.js';

const RETRY_POLICY = 'envoy.config.route.v3.RetryPolicy';

const headerMatch = object({ type: 'string', name: headerName, value: 'string' }, ['name']);
const backOff = object({ baseInterval: servedDuration(`${RETRY_POLICY}.RetryBackOff.base_interval`), maxInterval: servedDuration(`${RETRY_POLICY}.RetryBackOff.max_interval`) });
const rateLimitedBackOff = object({
  resetHeaders: list(object({ name: headerName, format: 'string' }, ['format', 'name'])),
  maxInterval: servedDuration(`${RETRY_POLICY}.RateLimitedRetryBackOff.max_interval`),
});
const numRetries = servedInteger('uint32', `${RETRY_POLICY}.num_retries`);
const perTryTimeout = servedDuration(`${RETRY_POLICY}.per_try_timeout`);
/** Kuma's retryOn names, or HTTP status codes (YAML gives them as numbers). */
const retryOn = list('int-or-string');

/** Kuma's MeshRetry schema (rest.yaml): the `default` of each `to` item. */
export const meshRetrySpecShape: SpecShape = defaultsIn(
  ['to'],
  object({
    tcp: object({ maxConnectAttempt: servedInteger('uint32', 'envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy.max_connect_attempts') }),
    http: object({
      numRetries,
      perTryTimeout,
      backOff,
      rateLimitedBackOff,
      retryOn,
      retriableResponseHeaders: list(headerMatch),
      retriableRequestHeaders: list(headerMatch),
      hostSelection: list(
        object(
          {
            predicate: 'string',
            tags: map('string'),
            updateFrequency: servedInteger('int32', 'envoy.extensions.retry.priority.previous_priorities.v3.PreviousPrioritiesConfig.update_frequency'),
          },
          ['predicate'],
        ),
      ),
      hostSelectionMaxAttempts: servedInteger('int64', `${RETRY_POLICY}.host_selection_retry_max_attempts`),
    }),
    grpc: object({ numRetries, perTryTimeout, backOff, rateLimitedBackOff, retryOn }),
  }),
);
