// A conf field of another JSON type is refused by name before the validator or the plugin reads it.
import { expect, it } from 'vitest';
import { validateResource } from '../../resources/validate.js';

const faults = (http: unknown) => ({
  type: 'MeshFaultInjection',
  mesh: 'default',
  name: 'faults',
  spec: { targetRef: { kind: 'MeshService', name: 'backend' }, from: [{ targetRef: { kind: 'Mesh' }, default: { http } }] },
});

it('refuses faults given as one object instead of a list', () => {
  expect(() => validateResource(faults({ abort: { httpStatus: 500, percentage: 5 } }))).toThrow(
    expect.objectContaining({ violations: [{ field: 'spec.from[0].default.http', message: 'in body must be of type array: "object"' }] }),
  );
});

it('refuses a fault whose status is text, with the schema\'s message rather than the range check\'s', () => {
  expect(() => validateResource(faults([{ abort: { httpStatus: '500', percentage: 5 } }]))).toThrow(
    expect.objectContaining({ violations: [{ field: 'spec.from[0].default.http[0].abort.httpStatus', message: 'in body must be of type integer: "string"' }] }),
  );
});
