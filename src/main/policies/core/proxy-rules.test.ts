import { describe, expect, it } from 'vitest';
import type { HttpMatch } from '../meshhttproute/api.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { ruleMatchesHash } from '../meshhttproute/prepare-routes.js';
import type { PolicyResource } from './policy.js';
import { computeProxyRules, RULE_MATCHES_HASH_TAG } from './proxy-rules.js';
import { catchAllInboundRule, ruleFor } from './rules.js';
import { dataplaneResource, meshResource, policyResource } from './testing/resources.js';

const web = dataplaneResource('web-1', [{ port: 8080, name: 'http', tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }], {
  labels: { app: 'web' },
});
const backend = dataplaneResource('backend-1', [{ port: 9000, tags: { 'kuma.io/service': 'backend' } }], { address: '10.0.0.2' });

function contextWith(...policies: PolicyResource[]) {
  return buildMeshContext(meshResource(), [web, backend], { policies });
}

const origin = (name: string, item: string, type = 'MeshTimeout') => ({ type, mesh: 'default', name, item });

describe('to rules', () => {
  it('merges every item containing a destination, the most specific subset first', () => {
    const context = contextWith(
      policyResource('MeshTimeout', 'all', { to: [{ targetRef: { kind: 'Mesh' }, default: { connectionTimeout: '1s', idleTimeout: '1m' } }] }),
      policyResource('MeshTimeout', 'web-to-backend', {
        targetRef: { kind: 'MeshService', name: 'web' },
        to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, default: { connectionTimeout: '2s' } }],
      }),
    );

    const { rules, matched } = computeProxyRules(context, web, 'MeshTimeout');

    expect(matched.map(({ meta }) => meta.name)).toEqual(['all', 'web-to-backend']);
    expect(rules.to).toEqual([
      {
        subset: [{ key: 'kuma.io/service', value: 'backend' }],
        conf: { connectionTimeout: '2s', idleTimeout: '1m' },
        origins: [origin('all', 'spec.to[0]'), origin('web-to-backend', 'spec.to[0]')],
      },
      { subset: [], conf: { connectionTimeout: '1s', idleTimeout: '1m' }, origins: [origin('all', 'spec.to[0]')] },
    ]);
    expect(ruleFor(rules.to, { 'kuma.io/service': 'redis' })?.conf).toEqual({ connectionTimeout: '1s', idleTimeout: '1m' });
    // backend-1 is not selected by web-to-backend: only the Mesh policy applies to it.
    expect(computeProxyRules(context, backend, 'MeshTimeout').rules.to).toEqual([
      { subset: [], conf: { connectionTimeout: '1s', idleTimeout: '1m' }, origins: [origin('all', 'spec.to[0]')] },
    ]);
  });

  it('lets the alphabetically smaller name win a tie', () => {
    const context = contextWith(
      policyResource('MeshRetry', 'b', { to: [{ targetRef: { kind: 'Mesh' }, default: { tcp: { maxConnectAttempt: 2 } } }] }),
      policyResource('MeshRetry', 'a', { to: [{ targetRef: { kind: 'Mesh' }, default: { tcp: { maxConnectAttempt: 1 } } }] }),
    );
    expect(computeProxyRules(context, web, 'MeshRetry').rules.to[0]!.conf).toEqual({ tcp: { maxConnectAttempt: 1 } });
  });

  it('narrows a policy aimed at a MeshHTTPRoute to that route rules by their matches hash', () => {
    const matches: HttpMatch[] = [{ path: { type: 'PathPrefix', value: '/api' } }];
    const context = contextWith(
      policyResource('MeshHTTPRoute', 'api-route', {
        to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, rules: [{ matches, default: { backendRefs: [{ kind: 'MeshService', name: 'backend' }] } }] }],
      }),
      policyResource('MeshTimeout', 'api-timeout', {
        targetRef: { kind: 'MeshHTTPRoute', name: 'api-route' },
        to: [{ targetRef: { kind: 'Mesh' }, default: { http: { requestTimeout: '3s' } } }],
      }),
    );

    const { rules, matched } = computeProxyRules(context, web, 'MeshTimeout');

    expect(matched.map(({ meta }) => meta.name)).toEqual(['api-timeout']);
    expect(rules.to).toEqual([
      {
        subset: [
          { key: RULE_MATCHES_HASH_TAG, value: ruleMatchesHash(matches) },
          { key: 'kuma.io/service', value: 'backend' },
        ],
        conf: { http: { requestTimeout: '3s' } },
        origins: [origin('api-timeout', 'spec.to[0]')],
      },
    ]);
  });

  it('reads a to item aimed at a MeshHTTPRoute as that route rules, next to the other items', () => {
    const matches: HttpMatch[] = [{ method: 'GET' }];
    const context = contextWith(
      policyResource('MeshHTTPRoute', 'reads', {
        to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, rules: [{ matches, default: { backendRefs: [{ kind: 'MeshService', name: 'backend' }] } }] }],
      }),
      policyResource('MeshTimeout', 'timeouts', {
        to: [
          { targetRef: { kind: 'Mesh' }, default: { http: { requestTimeout: '15s' } } },
          { targetRef: { kind: 'MeshHTTPRoute', name: 'reads' }, default: { http: { requestTimeout: '1s' } } },
        ],
      }),
    );

    const { rules } = computeProxyRules(context, web, 'MeshTimeout');

    const hash = { key: RULE_MATCHES_HASH_TAG, value: ruleMatchesHash(matches) };
    expect(ruleFor(rules.to, { 'kuma.io/service': 'backend', [RULE_MATCHES_HASH_TAG]: hash.value })).toEqual({
      subset: [hash, { key: 'kuma.io/service', value: 'backend' }],
      conf: { http: { requestTimeout: '1s' } },
      origins: [origin('timeouts', 'spec.to[0]'), origin('timeouts', 'spec.to[1]')],
    });
    expect(ruleFor(rules.to, { 'kuma.io/service': 'backend' })?.conf).toEqual({ http: { requestTimeout: '15s' } });
  });

  it('says which MeshHTTPRoute gave each route rule, by its matches hash', () => {
    const v1: HttpMatch[] = [{ path: { type: 'PathPrefix', value: '/v1' } }];
    const v2: HttpMatch[] = [{ path: { type: 'PathPrefix', value: '/v2' } }];
    const route = (name: string, matches: unknown[], service: string, top?: string) =>
      policyResource('MeshHTTPRoute', name, {
        ...(top && { targetRef: { kind: 'MeshService', name: top } }),
        to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, rules: [{ matches, default: { backendRefs: [{ kind: 'MeshService', name: service }] } }] }],
      });
    const context = contextWith(route('general', v1, 'backend'), route('general-v2', v2, 'backend'), route('web-v1', v1, 'backend-v1', 'web'));

    const [rule] = computeProxyRules(context, web, 'MeshHTTPRoute').rules.to;

    expect((rule!.conf as { rules: unknown[] }).rules).toEqual([
      { matches: v1, default: { backendRefs: [{ kind: 'MeshService', name: 'backend-v1' }] } },
      { matches: v2, default: { backendRefs: [{ kind: 'MeshService', name: 'backend' }] } },
    ]);
    expect(rule!.originByMatches).toEqual(
      new Map([
        [ruleMatchesHash(v2), origin('general-v2', 'spec.to[0]', 'MeshHTTPRoute')],
        [ruleMatchesHash(v1), origin('web-v1', 'spec.to[0]', 'MeshHTTPRoute')],
      ]),
    );
  });

  it('warns, and builds no to rules, for a policy aimed at a route that does not exist', () => {
    const context = contextWith(
      policyResource('MeshTimeout', 'orphan', { targetRef: { kind: 'MeshHTTPRoute', name: 'gone' }, to: [{ targetRef: { kind: 'Mesh' }, default: {} }] }),
    );
    const computed = computeProxyRules(context, web, 'MeshTimeout');
    expect(computed.matched).toEqual([]);
    expect(computed.warnings).toEqual([`unable to resolve TargetRef on policy: mesh:default name:orphan error:"couldn't resolve MeshHTTPRoute targetRef with name 'gone'"`]);
  });
});

describe('from rules', () => {
  it('builds per inbound the subsets of callers, with negations', () => {
    const context = contextWith(
      policyResource('MeshFaultInjection', 'all', {
        targetRef: { kind: 'Mesh', proxyTypes: ['Sidecar'] },
        from: [{ targetRef: { kind: 'Mesh' }, default: { http: [{ abort: { httpStatus: 500, percentage: 10 } }] } }],
      }),
      policyResource('MeshFaultInjection', 'demo', {
        targetRef: { kind: 'Dataplane', name: 'web-1' },
        from: [{ targetRef: { kind: 'MeshService', name: 'demo-client' }, default: { http: [{ delay: { value: '1s', percentage: 50 } }] } }],
      }),
    );

    const { rules } = computeProxyRules(context, web, 'MeshFaultInjection');

    expect(rules.from.get('10.0.0.1:8080')).toEqual([
      {
        subset: [{ key: 'kuma.io/service', value: 'demo-client' }],
        conf: { http: [{ delay: { value: '1s', percentage: 50 } }] },
        origins: [origin('all', 'spec.from[0]', 'MeshFaultInjection'), origin('demo', 'spec.from[0]', 'MeshFaultInjection')],
      },
      {
        subset: [{ key: 'kuma.io/service', value: 'demo-client', not: true }],
        conf: { http: [{ abort: { httpStatus: 500, percentage: 10 } }] },
        origins: [origin('all', 'spec.from[0]', 'MeshFaultInjection')],
      },
    ]);
    expect(computeProxyRules(context, backend, 'MeshFaultInjection').rules.from.get('10.0.0.2:9000')).toHaveLength(1);
  });
});

describe('inbound rules', () => {
  it('lists rules by match specificity and merges those without match into one catch-all for plugins', () => {
    const context = contextWith(
      policyResource('MeshTimeout', 'global', { rules: [{ default: { idleTimeout: '7s', connectionTimeout: '7s' } }] }),
      policyResource('MeshTimeout', 'legacy', { targetRef: { kind: 'Dataplane' }, from: [{ targetRef: { kind: 'Mesh' }, default: { idleTimeout: '9s' } }] }),
      policyResource('MeshTimeout', 'port', {
        targetRef: { kind: 'Dataplane', labels: { app: 'web' }, sectionName: 'http' },
        rules: [
          { matches: [{ sni: { type: 'Exact', value: 'web.mesh' } }, { spiffeID: { type: 'Prefix', value: 'spiffe://default/ns/a' } }], default: { connectionTimeout: '2s' } },
          { matches: [{ spiffeID: { type: 'Exact', value: 'spiffe://default/ns/a/sa/client' } }], default: { connectionTimeout: '1s' } },
        ],
      }),
    );

    const computed = computeProxyRules(context, web, 'MeshTimeout');

    expect(computed.inboundRules.get('10.0.0.1:8080')).toEqual([
      { match: { spiffeID: { type: 'Exact', value: 'spiffe://default/ns/a/sa/client' } }, conf: { connectionTimeout: '1s' }, origins: [origin('port', 'spec.rules[1]')] },
      { match: { spiffeID: { type: 'Prefix', value: 'spiffe://default/ns/a' } }, conf: { connectionTimeout: '2s' }, origins: [origin('port', 'spec.rules[0]')] },
      { match: { sni: { type: 'Exact', value: 'web.mesh' } }, conf: { connectionTimeout: '2s' }, origins: [origin('port', 'spec.rules[0]')] },
      { conf: { idleTimeout: '7s', connectionTimeout: '7s' }, origins: [origin('global', 'spec.rules[0]')] },
      { conf: { idleTimeout: '9s' }, origins: [origin('legacy', 'spec.from[0]')] },
    ]);
    expect(catchAllInboundRule(computed.rules.inbound.get('10.0.0.1:8080'))).toEqual({
      conf: { idleTimeout: '9s', connectionTimeout: '7s' },
      origins: [origin('global', 'spec.rules[0]'), origin('legacy', 'spec.from[0]')],
    });
    expect(computed.rules.inbound.get('10.0.0.1:8080')).toHaveLength(4);
  });
});

describe('sharing the work', () => {
  it('computes rules once per context and Dataplane, and shares rules between proxies with the same policies', () => {
    const other = dataplaneResource('web-2', [{ port: 8080, tags: { 'kuma.io/service': 'web' } }], { address: '10.0.0.3' });
    const context = buildMeshContext(meshResource(), [web, other], {
      policies: [policyResource('MeshTimeout', 'all', { to: [{ targetRef: { kind: 'Mesh' }, default: { idleTimeout: '1s' } }], rules: [{ default: {} }] })],
    });

    const first = computeProxyRules(context, web, 'MeshTimeout');
    expect(computeProxyRules(context, web, 'MeshTimeout')).toBe(first);
    const second = computeProxyRules(context, other, 'MeshTimeout');
    expect(second.rules.to).toBe(first.rules.to);
    expect(second.rules.inbound.get('10.0.0.3:8080')).toBe(first.rules.inbound.get('10.0.0.1:8080'));
  });

  it('hands proxies with different policy sets the same object for a rule they both have', () => {
    const api = dataplaneResource('api-1', [{ port: 8080, tags: { 'kuma.io/service': 'api' } }], { address: '10.0.0.4' });
    const context = buildMeshContext(meshResource(), [web, api], {
      policies: [
        policyResource('MeshTimeout', 'all', { to: [{ targetRef: { kind: 'Mesh' }, default: { idleTimeout: '1s' } }] }),
        policyResource('MeshTimeout', 'web-only', {
          targetRef: { kind: 'MeshService', name: 'web' },
          to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, default: { idleTimeout: '2s' } }],
        }),
      ],
    });

    const forWeb = computeProxyRules(context, web, 'MeshTimeout').rules.to;
    const forApi = computeProxyRules(context, api, 'MeshTimeout').rules.to;

    expect(forWeb).toHaveLength(2);
    expect(forApi).toEqual([forWeb[1]]);
    expect(forApi[0]).toBe(forWeb[1]);
  });
});
