// The shape of a policy as meshdesk reads it (Kuma's schema check and Go decoding), beyond Kuma's
// validator cases (test/kuma/policy-validation.kuma.test.ts): types, unknown fields, SPIFFE IDs.
import { describe, expect, it } from 'vitest';
import { violationsOf } from '../../resources/testing/violations.js';
import { validateResource } from '../../resources/validate.js';
import { spiffeIdError } from './spiffe-id.js';

const timeout = (spec: unknown) => ({ type: 'MeshTimeout', mesh: 'default', name: 'timeouts', spec });

describe('a policy as the API reads it', () => {
  it('takes its spec under `spec`, as Kuma writes and prints policies, and requires it', () => {
    expect(violationsOf({ type: 'MeshTimeout', mesh: 'default', name: 'timeouts', to: [] })).toEqual([{ field: '', message: 'spec in body is required' }]);
  });

  it('needs a mesh', () => {
    expect(violationsOf({ ...timeout({ to: [{ targetRef: { kind: 'Mesh' }, default: { connectionTimeout: '1s' } }] }), mesh: undefined })).toEqual([{ field: 'mesh', message: 'cannot be empty' }]);
  });

  it('drops the fields Kuma\'s types do not have, as Go decoding does, and keeps the conf as given', () => {
    const input = validateResource(
      timeout({
        targetRef: { kind: 'Mesh', colour: 'red' },
        rules: [{ matches: [{ sni: { type: 'Exact', value: 'a.b' }, extra: 1 }], default: { idleTimeout: '2s' } }],
        unknownSection: [],
      }),
    );
    expect(input.spec).toEqual({
      targetRef: { kind: 'Mesh' },
      rules: [{ matches: [{ sni: { type: 'Exact', value: 'a.b' } }], default: { idleTimeout: '2s' } }],
    });
    // A section the type does not have (MeshRetry has no `from`) is such a field.
    const retry = validateResource({ type: 'MeshRetry', mesh: 'default', name: 'r', spec: { to: [], from: [{ targetRef: { kind: 'Mesh' } }] } });
    expect(retry.spec).toEqual({ to: [] });
  });

  it('names a value of the wrong JSON type as Kuma\'s schema check does, and nothing else then', () => {
    expect(violationsOf(timeout({ to: 'everything' }))).toEqual([{ field: 'spec.to', message: 'in body must be of type array: "string"' }]);
    expect(violationsOf(timeout({ targetRef: { kind: 'Mesh', proxyTypes: ['Sidecar', 'Ingress'] }, to: [] }))).toEqual([
      { field: 'spec.targetRef.proxyTypes[1]', message: 'in body should be one of [Sidecar Gateway]' },
    ]);
  });
});

describe('SPIFFE IDs, as go-spiffe reads them', () => {
  it('accepts a trust domain with an optional path and names the first problem otherwise', () => {
    expect(spiffeIdError('spiffe://default/ns/backend-ns/sa/backend')).toBeUndefined();
    expect(spiffeIdError('spiffe://example.org')).toBeUndefined();
    expect(spiffeIdError('')).toBe('cannot be empty');
    expect(spiffeIdError('http://example.org/a')).toBe('scheme is missing or invalid');
    expect(spiffeIdError('spiffe:///a')).toBe('trust domain is missing');
    expect(spiffeIdError('spiffe://Example.org')).toBe('trust domain characters are limited to lowercase letters, numbers, dots, dashes, and underscores');
    expect(spiffeIdError('spiffe://example.org/a//b')).toBe('path cannot contain empty segments');
    expect(spiffeIdError('spiffe://example.org/a/../b')).toBe('path cannot contain dot segments');
    expect(spiffeIdError('spiffe://example.org/a/')).toBe('path cannot have a trailing slash');
    expect(spiffeIdError('spiffe://example.org/a b')).toBe('path segment characters are limited to letters, numbers, dots, dashes, and underscores');
  });
});

describe('a policy whose kinds name built-in members', () => {
  it('refuses a top-level kind `__proto__` as an unsupported kind, without reading the prototype as a table entry', () => {
    const route = { type: 'MeshHTTPRoute', mesh: 'default', name: 'r', spec: { targetRef: { kind: '__proto__' }, to: [{ targetRef: { kind: 'MeshService', name: 'b' }, rules: [] }] } };
    expect(violationsOf(route).map(({ field }) => field)).toContain('spec.targetRef.kind');
  });
});

describe("a conf without a field Kuma's schema requires", () => {
  const policy = (type: string, conf: object, section = 'to') => ({ type, mesh: 'default', name: 'p', spec: { targetRef: { kind: 'Mesh' }, [section]: [{ targetRef: { kind: 'Mesh' }, default: conf }] } });

  it('is refused at the field, before its validator (whose plugin would write an unnamed hash policy or header)', () => {
    expect(violationsOf(policy('MeshLoadBalancingStrategy', { hashPolicies: [{ terminal: true }, { type: 'Header', header: {} }] }))).toEqual([
      { field: 'spec.to[0].default.hashPolicies[0].type', message: 'in body is required' },
      { field: 'spec.to[0].default.hashPolicies[1].header.name', message: 'in body is required' },
    ]);
    expect(violationsOf(policy('MeshRateLimit', { local: { http: { requestRate: { interval: '1s' } } } }))).toEqual([
      { field: 'spec.to[0].default.local.http.requestRate.num', message: 'in body is required' },
    ]);
    expect(violationsOf(policy('MeshRetry', { http: { retriableRequestHeaders: [{ value: 'x' }] } }))).toEqual([
      { field: 'spec.to[0].default.http.retriableRequestHeaders[0].name', message: 'in body is required' },
    ]);
  });
});
