// A conf field of another JSON type is refused by name before the validator or the plugin reads it.
import { expect, it } from 'vitest';
import { validateResource } from '../../resources/validate.js';

const limit = (http: unknown) => ({
  type: 'MeshRateLimit',
  mesh: 'default',
  name: 'limits',
  spec: { targetRef: { kind: 'MeshService', name: 'backend' }, from: [{ targetRef: { kind: 'Mesh' }, default: { local: { http } } }] },
});

it('refuses a rate given as text and headers not given as a list, naming each', () => {
  const http = { requestRate: { num: '5', interval: '10s' }, onRateLimit: { headers: { set: 'x-limited: yes' } } };
  expect(() => validateResource(limit(http))).toThrow(
    expect.objectContaining({
      violations: [
        { field: 'spec.from[0].default.local.http.requestRate.num', message: 'in body must be of type integer: "string"' },
        { field: 'spec.from[0].default.local.http.onRateLimit.headers.set', message: 'in body must be of type array: "string"' },
      ],
    }),
  );
});
