import { defaultsIn, object, type SpecShape } from '../core/spec-shape.js';

/** Kuma's MeshTimeout schema (rest.yaml): the `default` of each `to`, `from` and `rules` item; every timeout a Go duration string. */
export const meshTimeoutSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    connectionTimeout: 'string',
    idleTimeout: 'string',
    http: object({
      requestTimeout: 'string',
      streamIdleTimeout: 'string',
      maxStreamDuration: 'string',
      maxConnectionDuration: 'string',
      requestHeadersTimeout: 'string',
    }),
  }),
);
