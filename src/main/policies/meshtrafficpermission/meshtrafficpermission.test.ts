import { describe, expect, it } from 'vitest';
import { casePolicyResources, goldenResources, policyCases, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { confValidationCases, expectMatchesGolden, runEnvoyPlugin } from '../../../../test/kuma/support/policy-plugin-run.js';
import { toKumaJson, type KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { ViolationList } from '../../resources/validation-error.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import type { MeshContext } from '../../xds/context/mesh-context.js';
import { generateProxy } from '../../xds/generate/profile.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { PolicyResource } from '../core/policy.js';
import { meshTrafficPermissionPlugin } from './plugin.js';

const INBOUND = 'inbound:127.0.0.1:80';
/** Kuma's test keys its rules by a synthetic listener, 192.168.0.1:8080; the case's Dataplane has its inbound on 127.0.0.1:80. */
const KUMA_INBOUND = '192.168.0.1:8080';

/**
 * The case with its rules on the Dataplane's own inbound (or on none, `onInbound` false: what
 * Kuma's test_listener2 shows), that inbound of `protocol`, and the mesh's mTLS `mode`.
 */
function adapted(policyCase: PolicyCase, { onInbound = true, protocol = 'http', mode }: { onInbound?: boolean; protocol?: string; mode?: string } = {}): PolicyCase {
  const json = structuredClone(policyCase.json);
  const proxy = json.proxy as { networking: { inbound: { tags: Record<string, string> }[] } };
  proxy.networking.inbound[0]!.tags['kuma.io/protocol'] = protocol;
  if (mode) (json.mesh as { mtls: { backends: Record<string, unknown>[] } }).mtls.backends[0]!.mode = mode;
  const rekey = (byInbound: Record<string, unknown> | null | undefined) =>
    byInbound && Object.fromEntries(Object.entries(byInbound).map(([key, rules]) => [key === KUMA_INBOUND && onInbound ? '127.0.0.1:80' : key, rules]));
  json.rulesAsTested = { ...json.rulesAsTested, fromRules: rekey(json.rulesAsTested?.fromRules) as never, inboundRules: rekey(json.rulesAsTested?.inboundRules) as never };
  return { ...policyCase, json };
}

/** The case's policies, stored with their labels (a `rules` RBAC action is named by the policy's KRI). */
function withCasePolicies(policyCase: PolicyCase): (context: MeshContext) => MeshContext {
  const policies = casePolicyResources(policyCase);
  return (context) => buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies });
}

type Chain = { filters: { name: string; typedConfig: { httpFilters?: KumaJson[] } }[]; transportSocket?: unknown; filterChainMatch?: unknown };
const chains = (listener: KumaJson | undefined) => (listener?.filterChains ?? []) as Chain[];
const httpFilters = (chain: Chain) => chain.filters.find((filter) => filter.name === 'envoy.filters.network.http_connection_manager')!.typedConfig.httpFilters;
const goldenListener = (policyCase: PolicyCase, name: string) => goldenResources([...policyCase.goldens.values()][0]!).get(name);

const cases = new Map(policyCases('meshtrafficpermission').map((policyCase) => [policyCase.id.split('/')[1]!, policyCase]));

describe.skipIf(!kumaCasesPresent())('MeshTrafficPermission on Envoy, against Kuma v2.14.3 goldens', () => {
  it('legacy-from-allow: the HTTP RBAC filter before the router, one ALLOW policy for the caller service', () => {
    const policyCase = cases.get('legacy-from-allow')!;
    const run = runEnvoyPlugin(meshTrafficPermissionPlugin, adapted(policyCase));
    const golden = goldenListener(policyCase, 'test_listener');
    expectMatchesGolden(policyCase.id, INBOUND, httpFilters(chains(run.after(LISTENER_TYPE_URL, INBOUND))[0]!), httpFilters(chains(golden)[0]!));
    expect(run.resources.attributions()).toEqual([
      {
        typeUrl: LISTENER_TYPE_URL,
        resource: INBOUND,
        path: 'filter_chains[0].filters[0].typed_config.http_filters[0]',
        origins: [{ type: 'MeshTrafficPermission', mesh: 'mesh-1', name: 'allow-frontend', item: 'spec.from[0]' }],
      },
    ]);
  });

  it.each(['legacy-from-allow', 'rules-deny-allow-shadow'])('%s: an inbound no MeshTrafficPermission selects denies everyone', (name) => {
    const policyCase = cases.get(name)!;
    const run = runEnvoyPlugin(meshTrafficPermissionPlugin, adapted(policyCase, { onInbound: false }));
    const golden = goldenListener(policyCase, 'test_listener2');
    expectMatchesGolden(policyCase.id, INBOUND, httpFilters(chains(run.after(LISTENER_TYPE_URL, INBOUND))[0]!), httpFilters(chains(golden)[0]!));
  });

  it('rules-deny-allow-shadow: the RBAC matcher (deny first, then allow), the shadow matcher, actions named by the policy KRI', () => {
    const policyCase = cases.get('rules-deny-allow-shadow')!;
    const run = runEnvoyPlugin(meshTrafficPermissionPlugin, adapted(policyCase), { context: withCasePolicies(policyCase) });
    const golden = goldenListener(policyCase, 'test_listener');
    expectMatchesGolden(policyCase.id, INBOUND, httpFilters(chains(run.after(LISTENER_TYPE_URL, INBOUND))[0]!), httpFilters(chains(golden)[0]!));
    expect(run.resources.attributions().map(({ path, origins }) => [path, origins.map(({ item }) => item)])).toEqual([
      ['filter_chains[0].filters[0].typed_config.http_filters[0]', ['spec.rules[0]']],
    ]);
  });
});

describe.skipIf(!kumaCasesPresent())('where MeshTrafficPermission puts its RBAC', () => {
  const policyCase = cases.get('legacy-from-allow')!;

  it('a TCP inbound: the network RBAC filter first in the chain, with the stat prefix `<listener>.`', () => {
    const run = runEnvoyPlugin(meshTrafficPermissionPlugin, adapted(policyCase, { protocol: 'tcp' }));
    const [chain] = chains(run.after(LISTENER_TYPE_URL, INBOUND));
    expect(chain!.filters.map(({ name }) => name)).toEqual(['envoy.filters.network.rbac', 'envoy.filters.network.tcp_proxy']);
    expect(chain!.filters[0]!.typedConfig).toEqual({
      '@type': 'type.googleapis.com/envoy.extensions.filters.network.rbac.v3.RBAC',
      statPrefix: 'inbound_127_0_0_1_80.',
      rules: { policies: { MeshTrafficPermission: { permissions: [{ any: true }], principals: [{ authenticated: { principalName: { exact: 'spiffe://mesh-1/frontend' } } }] } } },
    });
  });

  it('PERMISSIVE: only the mTLS chain (ALPN kuma); the plaintext and pass-through TLS chains have no identity to check', () => {
    const run = runEnvoyPlugin(meshTrafficPermissionPlugin, adapted(policyCase, { mode: 'PERMISSIVE' }));
    const names = chains(run.after(LISTENER_TYPE_URL, INBOUND)).map((chain) => httpFilters(chain)!.map(({ name }) => name));
    expect(names).toEqual([['envoy.filters.http.router'], ['envoy.filters.http.router'], ['envoy.filters.http.rbac', 'envoy.filters.http.router']]);
  });

  it('mTLS off: nothing at all, as Kuma skips the plugin', () => {
    const mtlsOff = adapted(policyCase);
    mtlsOff.json.mesh = { type: 'Mesh', name: 'mesh-1' };
    const run = runEnvoyPlugin(meshTrafficPermissionPlugin, mtlsOff);
    expect(run.after(LISTENER_TYPE_URL, INBOUND)).toEqual(run.before(LISTENER_TYPE_URL, INBOUND));
    expect(run.resources.attributions()).toEqual([]);
  });

  it('a rule matching an SNI adds the TLS inspector, which reads it', () => {
    const sni = adapted(cases.get('rules-deny-allow-shadow')!);
    const rules = sni.json.rulesAsTested!.inboundRules!['127.0.0.1:80']!;
    rules[0]!.conf = { allow: [{ sni: { type: 'Exact', value: 'backend.mesh-1' } }] };
    const run = runEnvoyPlugin(meshTrafficPermissionPlugin, sni);
    expect((run.before(LISTENER_TYPE_URL, INBOUND)!.listenerFilters as unknown[] | undefined) ?? []).toEqual([]);
    expect((run.after(LISTENER_TYPE_URL, INBOUND)!.listenerFilters as { name: string }[]).map(({ name }) => name)).toEqual(['envoy.filters.listener.tls_inspector']);
  });
});

describe.skipIf(!kumaCasesPresent())("MeshTrafficPermission's conf validation, against Kuma's validator cases", () => {
  const confCases = confValidationCases('meshtrafficpermission', (field) => /\.default\.|^spec\.rules\[\d+\]/.test(field));
  it.each(confCases.map((each) => [each.name, each] as const))('%s', (_name, validationCase) => {
    const violations = new ViolationList();
    meshTrafficPermissionPlugin.validate((validationCase.universalResource as { spec: never }).spec, violations);
    expect(violations.violations).toEqual(validationCase.own);
  });

  it('refuses an action outside Allow, Deny, AllowWithShadowDeny', () => {
    const violations = new ViolationList();
    meshTrafficPermissionPlugin.validate({ from: [{ targetRef: { kind: 'Mesh' }, default: { action: 'Permit' as never } }] }, violations);
    expect(violations.violations).toEqual([{ field: 'spec.from[0].default.action', message: 'in body should be one of [Allow Deny AllowWithShadowDeny]' }]);
  });
});

describe("MeshTrafficPermission from stored policies to a sidecar's inbound", () => {
  const time = '2024-01-01T00:00:00.000Z';
  const meta = (mesh: string, name: string) => ({ mesh, name, version: 1, creationTime: time, modificationTime: time, labels: {} });
  const mesh: MeshResource = {
    type: 'Mesh',
    meta: meta('', 'default'),
    spec: { mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } },
  };
  const echo: DataplaneResource = {
    type: 'Dataplane',
    meta: meta('default', 'echo-1'),
    spec: { networking: { address: '127.0.0.1', inbound: [{ port: 8080, tags: { 'kuma.io/service': 'echo', 'kuma.io/protocol': 'http' } }] } },
  };
  const permission = (name: string, spec: PolicyResource['spec']): PolicyResource => ({ type: 'MeshTrafficPermission', meta: meta('default', name), spec });
  const rbacOf = (policies: PolicyResource[]) => {
    const context = buildMeshContext(mesh, [echo], { policies });
    const { resources } = generateProxy(context, { id: 'default.echo-1', dataplane: echo, kind: 'envoy' });
    const listener = toKumaJson(LISTENER_TYPE_URL, resources[LISTENER_TYPE_URL].find(({ name }) => name === 'inbound:127.0.0.1:8080')!.resource);
    const { '@type': _type, ...rbac } = httpFilters(chains(listener)[0]!)!.find(({ name }) => name === 'envoy.filters.http.rbac')!.typedConfig as KumaJson;
    return rbac;
  };

  it('mTLS on and no MeshTrafficPermission: everyone is denied', () => {
    expect(rbacOf([])).toEqual({ rules: {} });
  });

  it("two policies' rules on one inbound each keep their callers (not merged away) and name their own actions", () => {
    const allowWeb = permission('allow-web', { targetRef: { kind: 'Mesh' }, rules: [{ default: { allow: [{ spiffeID: { type: 'Exact', value: 'spiffe://default/web' } }] } }] });
    const allowAdmin = permission('allow-admin', { targetRef: { kind: 'Mesh' }, rules: [{ default: { allow: [{ spiffeID: { type: 'Exact', value: 'spiffe://default/admin' } }] } }] });
    const allowed = (rbacOf([allowWeb, allowAdmin]).matcher as { matcherList: { matchers: { onMatch: { action: { typedConfig: { name: string } } }; predicate: { singlePredicate: { valueMatch: unknown } } }[] } }).matcherList.matchers;
    expect(allowed.map(({ onMatch, predicate }) => [onMatch.action.typedConfig.name, predicate.singlePredicate.valueMatch])).toEqual([
      // Kuma's merge order: on a tie of targetRefs, the name descending.
      ['kri_mtp_default___allow-web_', { exact: 'spiffe://default/web' }],
      ['kri_mtp_default___allow-admin_', { exact: 'spiffe://default/admin' }],
    ]);
  });
});
