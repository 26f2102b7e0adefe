import { defaultsIn, list, object, type SpecShape } from '../core/spec-shape.js';

const headers = list(object({ name: 'string', value: 'string' }, ['name', 'value']));

/** Kuma's MeshHealthCheck schema (rest.yaml): the `default` of each `to` item. */
export const meshHealthCheckSpecShape: SpecShape = defaultsIn(
  ['to'],
  object({
    interval: 'string',
    timeout: 'string',
    unhealthyThreshold: 'integer',
    healthyThreshold: 'integer',
    initialJitter: 'string',
    intervalJitter: 'string',
    intervalJitterPercent: 'integer',
    healthyPanicThreshold: 'int-or-string',
    failTrafficOnPanic: 'boolean',
    eventLogPath: 'string',
    alwaysLogHealthCheckFailures: 'boolean',
    noTrafficInterval: 'string',
    tcp: object({ disabled: 'boolean', send: 'string', receive: list('string') }),
    http: object({
      disabled: 'boolean',
      path: 'string',
      requestHeadersToAdd: object({ set: headers, add: headers }),
      expectedStatuses: list('integer'),
    }),
    grpc: object({ disabled: 'boolean', serviceName: 'string', authority: 'string' }),
    reuseConnection: 'boolean',
  }),
);
