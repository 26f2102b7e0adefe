import { defaultsIn, headerName, list, object, type SpecShape } from '../core/spec-shape.js';
import { servedDuration, servedInteger } from '../core/served-value.js';

const rate = object(
  { num: servedInteger('uint32', 'envoy.type.v3.TokenBucket.max_tokens'), interval: servedDuration('envoy.type.v3.TokenBucket.fill_interval') },
  ['interval', 'num'],
);
const headers = list(object({ name: headerName, value: 'string' }, ['name', 'value']));

/** Kuma's MeshRateLimit schema (rest.yaml): the `default` of each `to`, `from` and `rules` item. */
export const meshRateLimitSpecShape: SpecShape = defaultsIn(
  ['to', 'from', 'rules'],
  object({
    local: object({
      http: object({
        disabled: 'boolean',
        requestRate: rate,
        onRateLimit: object({ status: servedInteger('uint32'), headers: object({ set: headers, add: headers }) }),
      }),
      tcp: object({ disabled: 'boolean', connectionRate: rate }),
    }),
  }),
);
