import { defaultsIn, list, object, type SpecShape } from '../core/spec-shape.js';

const rate = object({ num: 'integer', interval: 'string' }, ['interval', 'num']);
const headers = list(object({ name: 'string', value: 'string' }, ['name', 'value']));

/** Kuma's MeshRateLimit schema (rest.yaml): the `default` of each `to`, `from` and `rules` item. */
export const meshRateLimitSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    local: object({
      http: object({
        disabled: 'boolean',
        requestRate: rate,
        onRateLimit: object({ status: 'integer', headers: object({ set: headers, add: headers }) }),
      }),
      tcp: object({ disabled: 'boolean', connectionRate: rate }),
    }),
  }),
);
