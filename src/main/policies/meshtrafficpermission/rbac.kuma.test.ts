import { describe, expect, it } from 'vitest';
import { caseProxy, goldenResources, policyCases, rulesAsTested, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { toKumaJson, type KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import type { PolicyResource } from '../core/policy.js';
import { emptyProxyRules, type ProxyRules } from '../core/rules.js';
import type { MeshTrafficPermissionConf } from './api.js';
import { HTTP_RBAC_TYPE_URL, rbacFilterFields, rbacForInbound, type RbacScope } from './rbac.js';

const cases = new Map(policyCases('meshtrafficpermission').map((policyCase) => [policyCase.id.split('/')[1]!, policyCase]));

/** The proxy's mesh and the case's policies as stored resources (their labels name the `rules` actions). */
function scopeOf(policyCase: PolicyCase): RbacScope {
  const { context } = caseProxy(policyCase);
  const policies = policyCase.json.policies.map(
    (policy) =>
      ({
        type: policy.type,
        meta: { mesh: policy.mesh, name: policy.name, labels: (policy as { labels?: Record<string, string> }).labels ?? {} },
        spec: policy.spec,
      }) as unknown as PolicyResource,
  );
  return { mesh: context.mesh, policyNamed: (type, name) => policies.find((policy) => policy.type === type && policy.meta.name === name) };
}

/** The golden's HTTP RBAC filter config on a listener, in Kuma's JSON form without its @type. */
function goldenRbac(policyCase: PolicyCase, listener: string): KumaJson {
  const [golden] = policyCase.goldens.values();
  const resource = goldenResources(golden!).get(listener)!;
  const chain = (resource.filterChains as { filters: { typedConfig: { httpFilters: { name: string; typedConfig: KumaJson }[] } }[] }[])[0]!;
  const { '@type': _type, ...rbac } = chain.filters[0]!.typedConfig.httpFilters.find((filter) => filter.name === 'envoy.filters.http.rbac')!.typedConfig;
  return rbac;
}

const ours = (rules: ProxyRules<MeshTrafficPermissionConf>, inbound: string, scope: RbacScope) =>
  toKumaJson(HTTP_RBAC_TYPE_URL, rbacFilterFields(rbacForInbound(rules, inbound, scope)));

describe("MeshTrafficPermission's RBAC for an inbound, against Kuma v2.14.3 goldens", () => {
  it('legacy-from-allow: one ALLOW policy with the caller service as principal; an inbound without rules denies all', () => {
    const policyCase = cases.get('legacy-from-allow')!;
    const rules = rulesAsTested<MeshTrafficPermissionConf>(policyCase);
    expect(ours(rules, '192.168.0.1:8080', scopeOf(policyCase))).toEqual(goldenRbac(policyCase, 'test_listener'));
    expect(ours(rules, '192.168.0.1:8081', scopeOf(policyCase))).toEqual(goldenRbac(policyCase, 'test_listener2'));
    expect(rbacForInbound(rules, '192.168.0.1:8080', scopeOf(policyCase)).origins).toEqual([
      { type: 'MeshTrafficPermission', mesh: 'mesh-1', name: 'allow-frontend', item: 'spec.from[0]' },
    ]);
  });

  it('rules-deny-allow-shadow: deny matchers first, allow and allowWithShadowDeny together, the shadow matcher denying the latter', () => {
    const policyCase = cases.get('rules-deny-allow-shadow')!;
    const rules = rulesAsTested<MeshTrafficPermissionConf>(policyCase);
    expect(ours(rules, '192.168.0.1:8080', scopeOf(policyCase))).toEqual(goldenRbac(policyCase, 'test_listener'));
    expect(ours(rules, '192.168.0.1:8081', scopeOf(policyCase))).toEqual(goldenRbac(policyCase, 'test_listener2'));
  });
});

describe('legacy `from` principals', () => {
  const scope = scopeOf(cases.get('legacy-from-allow')!);
  const from = (rules: ProxyRules<MeshTrafficPermissionConf>['from'] extends ReadonlyMap<string, infer R> ? R : never) => ({
    ...emptyProxyRules<MeshTrafficPermissionConf>(),
    from: new Map([['127.0.0.1:80', rules]]),
  });

  it('ANDs the tags of a subset, negations as not_id, Mesh as any; Deny subsets allow nobody; shadow-denies AllowWithShadowDeny', () => {
    const rbac = rbacForInbound(
      from([
        { subset: [{ key: 'kuma.io/service', value: 'web' }, { key: 'version', value: 'v1', not: true }], conf: { action: 'Allow' }, origins: [] },
        { subset: [{ key: 'kuma.io/service', value: 'web' }, { key: 'version', value: 'v1' }], conf: { action: 'Deny' }, origins: [] },
        { subset: [{ key: 'team', value: 'qa' }], conf: { action: 'AllowWithShadowDeny' }, origins: [] },
        { subset: [], conf: { action: 'Allow' }, origins: [] },
      ]),
      '127.0.0.1:80',
      scope,
    );
    const web = { authenticated: { principal_name: { exact: 'spiffe://mesh-1/web' } } };
    const qa = { authenticated: { principal_name: { exact: 'kuma://team/qa' } } };
    const policy = (principals: unknown[]) => ({ MeshTrafficPermission: { permissions: [{ any: true }], principals } });
    expect(rbac).toMatchObject({
      form: 'rules',
      rules: { policies: policy([{ and_ids: { ids: [web, { not_id: { authenticated: { principal_name: { exact: 'kuma://version/v1' } } } }] } }, { any: true }, qa]) },
      shadowRules: { action: 'DENY', policies: policy([qa]) },
    });
  });

  it('denies all on an inbound no MeshTrafficPermission selects', () => {
    expect(rbacForInbound(emptyProxyRules(), '127.0.0.1:80', scope)).toEqual({ form: 'rules', rules: {}, origins: [] });
  });
});
