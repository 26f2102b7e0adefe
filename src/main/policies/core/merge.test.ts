import { describe, expect, it } from 'vitest';
import { mergeConfsOf, toItemConf } from './merge.js';
import { mergePatches } from './merge-patch.js';

describe('merging confs', () => {
  it('applies them as JSON merge patches in order: fields override, lists replace, null deletes', () => {
    const first = Object.freeze({ connectionTimeout: '1s', http: Object.freeze({ requestTimeout: '2s', retryOn: Object.freeze(['5xx', 'reset']) }) });
    const second = { http: { retryOn: ['gateway-error'], maxStreamDuration: '3s' }, idleTimeout: '4s' };
    const third = { connectionTimeout: null, http: { requestTimeout: null } };

    expect(mergePatches([first, second, third])).toEqual({ idleTimeout: '4s', http: { retryOn: ['gateway-error'], maxStreamDuration: '3s' } });
    expect(first.http.requestTimeout).toBe('2s'); // inputs are shared resources: never changed
    expect(mergePatches([{ a: { b: null, c: 1 } }])).toEqual({ a: { c: 1 } });
    expect(mergePatches([])).toBeUndefined();
  });

  it('merges MeshHTTPRoute rules by their matches, the more specific policy first', () => {
    const v1 = [{ path: { type: 'PathPrefix', value: '/v1' } }];
    const v2 = [{ path: { type: 'PathPrefix', value: '/v2' } }];
    const general = toItemConf('MeshHTTPRoute', {
      targetRef: { kind: 'MeshService', name: 'backend' },
      rules: [
        { matches: v1, default: { backendRefs: [{ kind: 'MeshService', name: 'backend', weight: 1 }], filters: [{ type: 'RequestHeaderModifier' }] } },
        { matches: v2, default: { backendRefs: [{ kind: 'MeshService', name: 'backend-v2' }] } },
      ],
    });
    const specific = toItemConf('MeshHTTPRoute', {
      targetRef: { kind: 'MeshService', name: 'backend' },
      rules: [{ matches: v1, default: { backendRefs: [{ kind: 'MeshServiceSubset', name: 'backend', tags: { version: 'v1' } }] } }],
    });

    expect(mergeConfsOf('MeshHTTPRoute', [general, specific])).toEqual([
      {
        rules: [
          {
            matches: v1,
            default: { backendRefs: [{ kind: 'MeshServiceSubset', name: 'backend', tags: { version: 'v1' } }], filters: [{ type: 'RequestHeaderModifier' }] },
          },
          { matches: v2, default: { backendRefs: [{ kind: 'MeshService', name: 'backend-v2' }] } },
        ],
      },
    ]);
  });

  it('reads a MeshTCPRoute item as its first rule, or as a route to its own targetRef', () => {
    const rule = { default: { backendRefs: [{ kind: 'MeshService', name: 'b' }] } };
    expect(toItemConf('MeshTCPRoute', { targetRef: { kind: 'MeshService', name: 'a' }, rules: [rule, { default: {} }] })).toBe(rule);
    expect(toItemConf('MeshTCPRoute', { targetRef: { kind: 'MeshService', name: 'a' } })).toEqual({
      default: { backendRefs: [{ kind: 'MeshService', name: 'a', weight: 1 }] },
    });
  });
});
