import { describe, expect, it } from 'vitest';
import { ViolationList } from '../../resources/validation-error.js';
import { list, map, object, oneOf, readShape, type SpecShape } from './spec-shape.js';

function read(value: unknown, shape: SpecShape) {
  const violations = new ViolationList();
  const result = readShape(value, shape, 'spec', violations);
  return { result, violations: violations.violations };
}

describe('readShape', () => {
  const conf = object(
    { http: object({ numRetries: 'integer', perTryTimeout: 'string', retryOn: list('int-or-string'), tags: map('string') }, ['numRetries']) },
  );

  it('keeps a conf of the declared types as given, fields it does not name included', () => {
    const value = { http: { numRetries: 3, perTryTimeout: '1s', retryOn: ['5xx', 503], tags: { team: 'a' } }, other: [1] };
    expect(read(value, conf)).toEqual({ result: value, violations: [] });
  });

  it("refuses each value of another JSON type at its path, with kube-openapi's message", () => {
    expect(read({ http: { numRetries: 1.5, perTryTimeout: 5, retryOn: [true, { toString: 0 }], tags: { team: 1 } } }, conf).violations).toEqual([
      { field: 'spec.http.numRetries', message: 'in body must be of type integer: "number"' },
      { field: 'spec.http.perTryTimeout', message: 'in body must be of type string: "integer"' },
      { field: 'spec.http.retryOn[0]', message: 'in body must be of type string: "boolean"' },
      { field: 'spec.http.retryOn[1]', message: 'in body must be of type string: "object"' },
      { field: 'spec.http.tags.team', message: 'in body must be of type string: "integer"' },
    ]);
    expect(read({ http: [] }, conf).violations).toEqual([{ field: 'spec.http', message: 'in body must be of type object: "array"' }]);
  });

  it('reads null as absent, except as an item of a list', () => {
    expect(read({ http: null }, conf)).toEqual({ result: {}, violations: [] });
    expect(read({ http: { numRetries: 1, perTryTimeout: null } }, conf)).toEqual({ result: { http: { numRetries: 1 } }, violations: [] });
    expect(read({ http: { numRetries: 1, retryOn: [null] } }, conf).violations).toEqual([{ field: 'spec.http.retryOn[0]', message: 'in body must be of type string: "null"' }]);
  });

  it('requires the fields its schema requires, null being absent', () => {
    expect(read({ http: { numRetries: null } }, conf).violations).toEqual([{ field: 'spec.http.numRetries', message: 'in body is required' }]);
  });
});

describe('readShape on JSON that names built-in members', () => {
  it('reads `constructor` and `toString` as fields, and leaves `__proto__` out', () => {
    const shape = object({ rules: list(object({ default: object({}) })) });
    const input = JSON.parse('{"rules":[{"constructor":{"a":1},"toString":{"b":2},"__proto__":{"default":"x"},"default":{}}]}');

    const { result, violations } = read(input, shape);

    expect(violations).toEqual([]);
    expect(result).toEqual({ rules: [{ constructor: { a: 1 }, toString: { b: 2 }, default: {} }] });
    expect(Object.getPrototypeOf((result as { rules: object[] }).rules[0])).toBe(Object.prototype);
  });
});

describe('readShape of an enum', () => {
  it("refuses a string its schema does not list, with kube-openapi's message", () => {
    const shape = object({ path: object({ type: oneOf('Exact', 'PathPrefix') }) });
    expect(read({ path: { type: 'Exact' } }, shape).violations).toEqual([]);
    expect(read({ path: { type: '1e9h' } }, shape).violations).toEqual([{ field: 'spec.path.type', message: 'in body should be one of [Exact PathPrefix]' }]);
    expect(read({ path: { type: 7 } }, shape).violations).toEqual([{ field: 'spec.path.type', message: 'in body must be of type string: "integer"' }]);
  });
});
