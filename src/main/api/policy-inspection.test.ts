import { describe, expect, it } from 'vitest';
import type { HttpMatch } from '../policies/meshhttproute/api.js';
import { dataplaneResource, meshResource, policyResource } from '../policies/core/testing/resources.js';
import { ruleMatchesHash } from '../policies/meshhttproute/prepare-routes.js';
import { buildMeshContext } from '../xds/context/build-mesh-context.js';
import { dataplanesForPolicy, inspectRules } from './policy-inspection.js';

const dp = dataplaneResource(
  'dp-1',
  [
    { port: 8080, name: 'main-port', tags: { 'kuma.io/service': 'foo' } },
    { port: 7070, name: 'admin-port', tags: { 'kuma.io/service': 'admin' } },
  ],
  { labels: { app: 'demo' }, address: '127.0.0.1' },
);
const other = dataplaneResource('dp-2', [{ port: 8080, tags: { 'kuma.io/service': 'bar' } }], { address: '127.0.0.2' });
const everywhere = policyResource('MeshTimeout', 'everywhere', {
  rules: [{ default: { idleTimeout: '7s' } }],
  to: [{ targetRef: { kind: 'Mesh' }, default: { connectionTimeout: '1s' } }],
});
const mainPort = policyResource('MeshTimeout', 'main-port', { targetRef: { kind: 'Dataplane', labels: { app: 'demo' }, sectionName: 'main-port' }, rules: [{ default: { http: { requestTimeout: '2s' } } }] }, { team: 'a' });
const matches: HttpMatch[] = [{ path: { type: 'PathPrefix', value: '/v2' } }];
const route = policyResource('MeshHTTPRoute', 'v2', {
  targetRef: { kind: 'MeshService', name: 'foo' },
  to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, rules: [{ matches, default: { backendRefs: [{ kind: 'MeshService', name: 'backend-v2' }] } }] }],
});
const context = buildMeshContext(meshResource(), [dp, other], { policies: [everywhere, mainPort, route] });

describe('GET /meshes/{mesh}/dataplanes/{name}/_rules', () => {
  it("answers in Kuma's shape: per type, to rules with matchers and the policies merged, inbound rules per inbound by port", () => {
    const body = inspectRules(context, dp);

    expect(body.resource).toEqual({ type: 'Dataplane', mesh: 'default', name: 'dp-1', labels: { app: 'demo' } });
    expect(body.httpMatches).toEqual([{ hash: ruleMatchesHash(matches), match: matches }]);
    expect(body.rules.map(({ type }) => type)).toEqual(['MeshHTTPRoute', 'MeshTimeout']);
    const timeout = body.rules[1]!;
    expect(timeout).toEqual({
      type: 'MeshTimeout',
      toRules: [{ conf: { connectionTimeout: '1s' }, matchers: [], origin: [{ type: 'MeshTimeout', mesh: 'default', name: 'everywhere', labels: {} }] }],
      toResourceRules: [],
      fromRules: [],
      inboundRules: [
        {
          inbound: { name: 'admin-port', port: 7070, tags: { 'kuma.io/service': 'admin' } },
          rules: [{ conf: [{ idleTimeout: '7s' }], origin: [{ resourceMeta: { type: 'MeshTimeout', mesh: 'default', name: 'everywhere', labels: {} }, ruleIndex: 0 }] }],
        },
        {
          inbound: { name: 'main-port', port: 8080, tags: { 'kuma.io/service': 'foo' } },
          rules: [
            { conf: [{ idleTimeout: '7s' }], origin: [{ resourceMeta: { type: 'MeshTimeout', mesh: 'default', name: 'everywhere', labels: {} }, ruleIndex: 0 }] },
            { conf: [{ http: { requestTimeout: '2s' } }], origin: [{ resourceMeta: { type: 'MeshTimeout', mesh: 'default', name: 'main-port', labels: { team: 'a' } }, ruleIndex: 0 }] },
          ],
        },
      ],
      warnings: [],
    });
    expect(body.rules[0]!.toRules).toEqual([
      {
        conf: { rules: [{ matches, default: { backendRefs: [{ kind: 'MeshService', name: 'backend-v2' }] } }] },
        matchers: [{ key: 'kuma.io/service', value: 'backend', not: false }],
        origin: [{ type: 'MeshHTTPRoute', mesh: 'default', name: 'v2', labels: {} }],
      },
    ]);
  });

  it('leaves out the types without any rule for the proxy', () => {
    expect(inspectRules(context, other).rules.map(({ type }) => type)).toEqual(['MeshTimeout']);
    expect(inspectRules(buildMeshContext(meshResource(), [dp]), dp)).toEqual({ httpMatches: [], resource: expect.any(Object), rules: [] });
  });
});

describe('GET /meshes/{mesh}/{policies}/{name}/_resources/dataplanes', () => {
  it('lists the Dataplanes the policy selects, filtered by name', () => {
    const meta = (name: string, labels = {}) => ({ type: 'Dataplane', mesh: 'default', name, labels });
    expect(dataplanesForPolicy(context, everywhere)).toEqual({ total: 2, items: [meta('dp-1', { app: 'demo' }), meta('dp-2')], next: null });
    expect(dataplanesForPolicy(context, mainPort)).toEqual({ total: 1, items: [meta('dp-1', { app: 'demo' })], next: null });
    expect(dataplanesForPolicy(context, everywhere, '-2')).toEqual({ total: 1, items: [meta('dp-2')], next: null });
  });
});
