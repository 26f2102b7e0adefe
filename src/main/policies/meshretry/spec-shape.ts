import { defaultsIn, list, map, object, type SpecShape } from '../core/spec-shape.js';

const headerMatch = object({ type: 'string', name: 'string', value: 'string' }, ['name']);
const backOff = object({ baseInterval: 'string', maxInterval: 'string' });
const rateLimitedBackOff = object({ resetHeaders: list(object({ name: 'string', format: 'string' }, ['format', 'name'])), maxInterval: 'string' });
/** Kuma's retryOn names, or HTTP status codes (YAML gives them as numbers). */
const retryOn = list('int-or-string');

/** Kuma's MeshRetry schema (rest.yaml): the `default` of each `to` item. */
export const meshRetrySpecShape: SpecShape = defaultsIn(
  ['to'],
  object({
    tcp: object({ maxConnectAttempt: 'integer' }),
    http: object({
      numRetries: 'integer',
      perTryTimeout: 'string',
      backOff,
      rateLimitedBackOff,
      retryOn,
      retriableResponseHeaders: list(headerMatch),
      retriableRequestHeaders: list(headerMatch),
      hostSelection: list(object({ predicate: 'string', tags: map('string'), updateFrequency: 'integer' }, ['predicate'])),
      hostSelectionMaxAttempts: 'integer',
    }),
    grpc: object({ numRetries: 'integer', perTryTimeout: 'string', backOff, rateLimitedBackOff, retryOn }),
  }),
);
