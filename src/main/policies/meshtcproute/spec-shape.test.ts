// A MeshTCPRoute conf field of another JSON type is refused by name, as Kuma's schema check names
// it, before the validator reads it (it failed the validator with a TypeError: a 500).
import { describe, expect, it } from 'vitest';
import { violationsOf } from '../../resources/testing/violations.js';

const route = (rules: unknown) => ({
  type: 'MeshTCPRoute',
  mesh: 'default',
  name: 'route',
  spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, rules }] },
});

describe("MeshTCPRoute's spec shape", () => {
  it.each([
    ['rules given as a number', 0, 'spec.to[0].rules', 'in body must be of type array: "integer"'],
    ['a null rule', [null], 'spec.to[0].rules[0]', 'in body must be of type object: "null"'],
    ['backendRefs given as a boolean', [{ default: { backendRefs: false } }], 'spec.to[0].rules[0].default.backendRefs', 'in body must be of type array: "boolean"'],
    ['a null backendRef', [{ default: { backendRefs: [null] } }], 'spec.to[0].rules[0].default.backendRefs[0]', 'in body must be of type object: "null"'],
    [
      'a backendRef name that is an object',
      [{ default: { backendRefs: [{ kind: 'MeshService', name: { toString: 0, valueOf: 0 } }] } }],
      'spec.to[0].rules[0].default.backendRefs[0].name',
      'in body must be of type string: "object"',
    ],
  ])('names %s', (_name, rules, field, message) => {
    expect(violationsOf(route(rules))).toEqual([{ field, message }]);
  });
});
