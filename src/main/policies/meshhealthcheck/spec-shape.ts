import { defaultsIn, headerName, list, object, type SpecShape } from '../core/spec-shape.js';
import { servedDuration, servedInteger, servedString } from '../core/served-value.js';

const HEALTH_CHECK = 'envoy.config.core.v3.HealthCheck';

/** A TCP payload is sent as its text's bytes in hex (Kuma does not decode it): Envoy refuses an empty one. */
const payload = servedString(`${HEALTH_CHECK}.Payload.text`);
const headers = list(object({ name: headerName, value: 'string' }, ['name', 'value']));

/** Kuma's MeshHealthCheck schema (rest.yaml): the `default` of each `to` item. */
export const meshHealthCheckSpecShape: SpecShape = defaultsIn(
  ['to'],
  object({
    interval: servedDuration(`${HEALTH_CHECK}.interval`),
    timeout: servedDuration(`${HEALTH_CHECK}.timeout`),
    unhealthyThreshold: servedInteger('int32', `${HEALTH_CHECK}.unhealthy_threshold`),
    healthyThreshold: servedInteger('int32', `${HEALTH_CHECK}.healthy_threshold`),
    initialJitter: servedDuration(`${HEALTH_CHECK}.initial_jitter`),
    intervalJitter: servedDuration(`${HEALTH_CHECK}.interval_jitter`),
    intervalJitterPercent: servedInteger('int32', `${HEALTH_CHECK}.interval_jitter_percent`),
    healthyPanicThreshold: 'int-or-string',
    failTrafficOnPanic: 'boolean',
    eventLogPath: 'string',
    alwaysLogHealthCheckFailures: 'boolean',
    noTrafficInterval: servedDuration(`${HEALTH_CHECK}.no_traffic_interval`),
    tcp: object({ disabled: 'boolean', send: payload, receive: list(payload) }),
    http: object({
      disabled: 'boolean',
      path: 'string',
      requestHeadersToAdd: object({ set: headers, add: headers }),
      expectedStatuses: list(servedInteger('int32')),
    }),
    grpc: object({ disabled: 'boolean', serviceName: 'string', authority: 'string' }),
    reuseConnection: 'boolean',
  }),
);
