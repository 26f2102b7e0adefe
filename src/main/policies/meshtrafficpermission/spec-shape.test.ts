// A conf field of another JSON type is refused by name before the validator or the plugin reads it.
import { expect, it } from 'vitest';
import { validateResource } from '../../resources/validate.js';

const permission = (spec: unknown) => ({ type: 'MeshTrafficPermission', mesh: 'default', name: 'permissions', spec: { targetRef: { kind: 'Mesh' }, ...(spec as object) } });

it('refuses a caller whose SPIFFE ID is not text at its schema path, and nothing else', () => {
  const rules = [{ default: { allow: [{ spiffeID: { type: 'Exact', value: 7 } }] } }];
  expect(() => validateResource(permission({ rules }))).toThrow(
    expect.objectContaining({ violations: [{ field: 'spec.rules[0].default.allow[0].spiffeID.value', message: 'in body must be of type string: "integer"' }] }),
  );
});

it('refuses an action that is not text', () => {
  const from = [{ targetRef: { kind: 'Mesh' }, default: { action: ['Allow'] } }];
  expect(() => validateResource(permission({ from }))).toThrow(
    expect.objectContaining({ violations: [{ field: 'spec.from[0].default.action', message: 'in body must be of type string: "array"' }] }),
  );
});
