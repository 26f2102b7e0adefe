// MeshHTTPRoute's filters on Envoy routes, with the values Kuma v2.14.3's plugin goldens
// `request-redirect`, `url-rewrite` and `request-mirror` (plugin/v1alpha1/testdata, not among the
// copied cases) show for the same rules.
import { describe, expect, it } from 'vitest';
import { destinationClusterName } from '../core/route-clusters.js';
import type { HttpFilter } from './api.js';
import { envoyRoutes } from './envoy-routes.js';
import { prepareRoutes } from './prepare-routes.js';

const V1_PREFIX = { path: { type: 'PathPrefix' as const, value: '/v1' } };

/** The Envoy routes of one rule (PathPrefix /v1 with these filters) to `backend`, catch-all route left out. */
function routesWith(filters: HttpFilter[], mirrorCluster?: string) {
  const [route] = prepareRoutes([{ matches: [V1_PREFIX], default: { filters } }], { kind: 'MeshService', name: 'backend' }, []);
  return envoyRoutes(route!, [{ cluster: 'backend', weight: 100 }], { timeout: '0s' }, () => mirrorCluster);
}

describe("MeshHTTPRoute's filters on Envoy routes", () => {
  it('RequestRedirect replaces the route action (302 unless told)', () => {
    expect(routesWith([{ type: 'RequestRedirect', requestRedirect: { scheme: 'other' } }]).map(({ match, redirect }) => ({ match, redirect }))).toEqual([
      { match: { path: '/v1' }, redirect: { scheme_redirect: 'other', response_code: 'FOUND' } },
      { match: { prefix: '/v1/' }, redirect: { scheme_redirect: 'other', response_code: 'FOUND' } },
    ]);
  });

  it('URLRewrite ReplacePrefixMatch rewrites the whole path of the exact route and the prefix of the prefix route', () => {
    const routes = routesWith([{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/v2' } } }]);
    expect(routes.map(({ route }) => route)).toEqual([
      { cluster: 'backend', timeout: '0s', regex_rewrite: { pattern: { regex: '.*' }, substitution: '/v2' } },
      { cluster: 'backend', timeout: '0s', prefix_rewrite: '/v2' },
    ]);
  });

  it('RequestMirror adds a mirror policy per filter, with a fractional percentage', () => {
    const payments = destinationClusterName({ 'kuma.io/service': 'payments', version: 'v1', region: 'us', env: 'dev' });
    expect(payments).toBe('payments-9f43ffb3c22f8c19');
    const [route] = prepareRoutes(
      [
        {
          matches: [V1_PREFIX],
          default: {
            filters: [
              { type: 'RequestMirror', requestMirror: { percentage: '99.9', backendRef: { kind: 'MeshServiceSubset', name: 'payments', tags: { version: 'v1', region: 'us', env: 'dev' } } } },
              { type: 'RequestMirror', requestMirror: { backendRef: { kind: 'MeshService', name: 'backend' } } },
            ],
          },
        },
      ],
      { kind: 'MeshService', name: 'backend' },
      [],
    );
    const clusters = new Map(route!.filters.map((filter, index) => [filter, index === 0 ? payments : 'backend']));
    const [exact] = envoyRoutes(route!, [{ cluster: 'backend', weight: 100 }], {}, (filter) => clusters.get(filter));
    expect(exact!['route']).toEqual({
      cluster: 'backend',
      request_mirror_policies: [
        { cluster: 'payments-9f43ffb3c22f8c19', runtime_fraction: { default_value: { numerator: 9990, denominator: 'TEN_THOUSAND' } } },
        { cluster: 'backend' },
      ],
    });
  });

  it('ResponseHeaderModifier writes response headers, set before add', () => {
    const [route] = routesWith([
      { type: 'ResponseHeaderModifier', responseHeaderModifier: { add: [{ name: 'a', value: '1' }], set: [{ name: 's', value: '2' }], remove: ['r'] } },
    ]);
    expect([route!['response_headers_to_add'], route!['response_headers_to_remove']]).toEqual([
      [
        { header: { key: 's', value: '2' }, append_action: 'OVERWRITE_IF_EXISTS_OR_ADD' },
        { header: { key: 'a', value: '1' }, append_action: 'APPEND_IF_EXISTS_OR_ADD' },
      ],
      ['r'],
    ]);
  });

  it('sorts routes by Gateway API precedence and names each after its rule', () => {
    const routes = prepareRoutes(
      [
        { matches: [{ method: 'GET' }], default: {} },
        { matches: [{ path: { type: 'RegularExpression', value: '/a.*' } }, { path: { type: 'PathPrefix', value: '/ab' } }], default: {} },
        { matches: [{ path: { type: 'PathPrefix', value: '/abc' } }, { path: { type: 'Exact', value: '/x' } }], default: {} },
      ],
      { kind: 'MeshService', name: 'backend' },
      [],
    );
    expect(routes.map(({ match, rule }) => [match.path.type, match.path.value, match.method, rule])).toEqual([
      ['Exact', '/x', undefined, 2],
      ['PathPrefix', '/abc', undefined, 2],
      ['PathPrefix', '/ab', undefined, 1],
      ['RegularExpression', '/a.*', undefined, 1],
      ['PathPrefix', '/', 'GET', 0],
      ['PathPrefix', '/', undefined, undefined],
    ]);
    expect(new Set(routes.slice(0, 2).map(({ name }) => name)).size).toBe(1);
  });
});
