import { defaultsIn, list, map, object, type SpecShape } from '../core/spec-shape.js';

const keyValues = list(object({ key: 'string', value: 'string' }));
const format = object({ type: 'string', plain: 'string', json: keyValues, omitEmptyValues: 'boolean' }, ['type']);

/** Kuma's MeshAccessLog schema (rest.yaml): the `default` of each `to`, `from` and `rules` item. */
export const meshAccessLogSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    backends: list(
      object({
        type: 'string',
        tcp: object({ format, address: 'string' }, ['address']),
        file: object({ format, path: 'string' }),
        openTelemetry: object({
          attributes: keyValues,
          // apiextensionsv1.JSON: the OpenTelemetry log body, any JSON value.
          body: 'any',
          endpoint: 'string',
          backendRef: object({ kind: 'string', labels: map('string') }, ['kind']),
        }),
      }, ['type']),
    ),
  }),
);
