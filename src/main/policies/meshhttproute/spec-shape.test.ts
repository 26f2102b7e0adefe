// A MeshHTTPRoute conf field of another JSON type is refused by name, as Kuma's schema check names
// it, before the validator reads it (it failed the validator with a TypeError: a 500).
import { describe, expect, it } from 'vitest';
import { violationsOf } from '../../resources/testing/violations.js';

const route = (rule: object) => ({
  type: 'MeshHTTPRoute',
  mesh: 'default',
  name: 'route',
  spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], ...rule }] }] },
});

const RULE = 'spec.to[0].rules[0]';

describe("MeshHTTPRoute's spec shape", () => {
  it.each([
    ['a filters list given as text', { default: { filters: 'x' } }, `${RULE}.default.filters`, 'in body must be of type array: "string"'],
    ['a null backendRef', { default: { backendRefs: [null] } }, `${RULE}.default.backendRefs[0]`, 'in body must be of type object: "null"'],
    ['a backendRef kind that is an object', { default: { backendRefs: [{ kind: { toString: 0 } }] } }, `${RULE}.default.backendRefs[0].kind`, 'in body must be of type string: "object"'],
    ['a path value that is a list', { matches: [{ path: { type: 'Exact', value: [] } }], default: {} }, `${RULE}.matches[0].path.value`, 'in body must be of type string: "array"'],
    ['headers given as an object', { matches: [{ headers: {} }], default: {} }, `${RULE}.matches[0].headers`, 'in body must be of type array: "object"'],
    [
      'an empty header name to set, which Envoy refuses',
      { default: { filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: '', value: 'v' }] } }] } },
      `${RULE}.default.filters[0].requestHeaderModifier.set[0].name`,
      'in body should be at least 1 chars long',
    ],
    [
      'a header name with capitals, which Kuma refuses',
      { matches: [{ headers: [{ type: 'Exact', name: 'X-Version', value: 'v1' }] }], default: {} },
      `${RULE}.matches[0].headers[0].name`,
      "in body should match '^[a-z0-9!#$%&'*+\\-.^_\\x60|~]+$'",
    ],
    [
      'an empty header name to remove, which Kuma takes and Envoy refuses',
      { default: { filters: [{ type: 'ResponseHeaderModifier', responseHeaderModifier: { remove: [''] } }] } },
      `${RULE}.default.filters[0].responseHeaderModifier.remove[0]`,
      "must be servable: Envoy's Route.response_headers_to_remove must be at least 1 character(s) long (string.min_len), got 0",
    ],
    ['a query parameter match with an empty name', { matches: [{ queryParams: [{ type: 'Exact', name: '', value: 'v' }] }], default: {} }, `${RULE}.matches[0].queryParams[0].name`, 'in body should be at least 1 chars long'],
    ['a query parameter match without its value', { matches: [{ queryParams: [{ type: 'Exact', name: 'v' }] }], default: {} }, `${RULE}.matches[0].queryParams[0].value`, 'in body is required'],
    [
      "a mirror's backendRef given as text",
      { default: { filters: [{ type: 'RequestMirror', requestMirror: { backendRef: 'backend' } }] } },
      `${RULE}.default.filters[0].requestMirror.backendRef`,
      'in body must be of type object: "string"',
    ],
  ])('names %s', (_name, rule, field, message) => {
    expect(violationsOf(route(rule))).toEqual([{ field, message }]);
  });

  // Kuma's schema (rest.yaml) requires both; its API answers a rule without one with the schema's words alone.
  it.each([
    ['a rule without matches', { matches: undefined, default: {} }, `${RULE}.matches`, 'in body is required'],
    ['a rule with an empty matches list', { matches: [], default: {} }, `${RULE}.matches`, 'in body should have at least 1 items'],
    ['a rule without default', {}, `${RULE}.default`, 'in body is required'],
  ])('refuses %s as Kuma does', (_name, rule, field, message) => {
    expect(violationsOf(route(rule))).toEqual([{ field, message }]);
  });

  it('refuses a to item without rules', () => {
    const policy = route({});
    delete (policy.spec.to[0] as { rules?: unknown }).rules;
    expect(violationsOf(policy)).toEqual([{ field: 'spec.to[0].rules', message: 'in body is required' }]);
  });
});
