import '../../../../test/support/grpc-js-xds-rbac.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { grpcJsXdsDecode, registerGrpcXds } from '../../../../test/support/grpc-xds.js';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { DataplaneResource, MeshResource } from '../../../shared/resources.js';
import { validateResource } from '../../resources/validate.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { grpcServerListenerName } from '../../xds/generate/grpc-server-listeners.js';
import { generateProxyResources } from '../../xds/generate/profile.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { EnvoyResources } from '../core/envoy-resources.js';
import type { UnappliedField } from '../core/plugin.js';
import { emptyProxyRules, type InboundRule, type ProxyRules, type Rule } from '../core/rules.js';
import type { MeshTrafficPermissionConf } from './api.js';
import { applyMeshTrafficPermissionToGrpc } from './grpc.js';

const TIME = '2026-01-01T00:00:00.000Z';
const LISTENER = grpcServerListenerName('127.0.0.1', 8080);
const INBOUND = '127.0.0.1:8080';
const STRICT = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', mode: 'STRICT' }] };

function stored<T>(input: Record<string, unknown>, type: 'Mesh' | 'Dataplane'): T {
  const read = validateResource(input, { type });
  return { type, meta: { mesh: read.mesh, name: read.name, version: 1, creationTime: TIME, modificationTime: TIME, labels: read.labels }, spec: read.spec } as T;
}

/** The xDS-enabled gRPC server `echo-1` (port 8080) in a mesh with `mtls` (null: off), after the plugin ran with `rules`. */
function serverWith(rules: Partial<ProxyRules<MeshTrafficPermissionConf>>, mtls: object | null = STRICT) {
  const mesh = stored<MeshResource>({ type: 'Mesh', name: 'default', ...(mtls && { mtls }) }, 'Mesh');
  const dataplane = stored<DataplaneResource>(
    { type: 'Dataplane', mesh: 'default', name: 'echo-1', networking: { address: '127.0.0.1', inbound: [{ port: 8080, tags: { 'kuma.io/service': 'echo', 'kuma.io/protocol': 'grpc' } }] } },
    'Dataplane',
  );
  const context = buildMeshContext(mesh, [dataplane]);
  const proxy = { id: 'default.echo-1', dataplane, kind: 'grpc' as const };
  const generated = generateProxyResources(context, proxy);
  const resources = new EnvoyResources(generated, context);
  const unapplied: UnappliedField[] = [];
  applyMeshTrafficPermissionToGrpc({
    proxy,
    context,
    rules: { ...emptyProxyRules<MeshTrafficPermissionConf>(), ...rules },
    resources,
    rulesOf: () => emptyProxyRules(),
    unapplied: (field) => unapplied.push(field),
  });
  const listener = resources.get(LISTENER_TYPE_URL, LISTENER)!;
  const before = generated[LISTENER_TYPE_URL].find(({ name }) => name === LISTENER)!.resource;
  return { listener, before, unapplied, attributions: resources.attributions() };
}

/** The HTTP filters of the listener's one HttpConnectionManager. */
function httpFilters(listener: ProtoJson): ProtoJson[] {
  const [chain] = listener.filter_chains as { filters: { typed_config: { http_filters: ProtoJson[] } }[] }[];
  return chain!.filters[0]!.typed_config.http_filters;
}

function rbacRules(listener: ProtoJson): ProtoJson {
  const [rbac, router] = httpFilters(listener);
  expect(router!.name).toBe('envoy.filters.http.router');
  expect(rbac!.name).toBe('envoy.filters.http.rbac');
  const { '@type': type, ...config } = rbac!.typed_config as ProtoJson;
  expect(type).toBe('type.googleapis.com/envoy.extensions.filters.http.rbac.v3.RBAC');
  // gRPC reads `rules` only (gRFC A41): no matcher, no shadow rules.
  expect(Object.keys(config)).toEqual(['rules']);
  return config.rules as ProtoJson;
}

const origin = (item: string): PolicyOrigin => ({ type: 'MeshTrafficPermission', mesh: 'default', name: 'mtp', item });
const fromRule = (service: string, action: MeshTrafficPermissionConf['action'], item = 'spec.from[0]'): Rule<MeshTrafficPermissionConf> => ({
  subset: [{ key: 'kuma.io/service', value: service }],
  conf: { action },
  origins: [origin(item)],
});
const principal = (match: ProtoJson) => ({ authenticated: { principal_name: match } });

describe('MeshTrafficPermission on an xDS-enabled gRPC server (gRFC A41)', () => {
  beforeAll(() => registerGrpcXds());

  it('denies every caller of an mTLS inbound no permission selects, with the RBAC filter before the router', () => {
    const { listener, attributions } = serverWith({});
    expect(rbacRules(listener)).toEqual({});
    expect(grpcJsXdsDecode(LISTENER_TYPE_URL, listener)).toEqual({ name: LISTENER });
    // The deny-all comes from no policy: nothing to attribute.
    expect(attributions).toEqual([]);
  });

  it('changes nothing without mTLS, or with PERMISSIVE (a proxyless server is plaintext then, its callers have no identity)', () => {
    const rules = { from: new Map([[INBOUND, [fromRule('web', 'Allow')]]]) };
    for (const mtls of [null, { ...STRICT, backends: [{ ...STRICT.backends[0], mode: 'PERMISSIVE' }] }]) {
      const { listener, before, unapplied } = serverWith(rules, mtls);
      expect(listener).toBe(before);
      expect(unapplied).toEqual([]);
    }
  });

  it('writes legacy `from` rules as the Envoy plugin does, without shadow rules, and reports AllowWithShadowDeny', () => {
    const { listener, unapplied, attributions } = serverWith({ from: new Map([[INBOUND, [fromRule('web', 'Allow'), fromRule('qa', 'AllowWithShadowDeny', 'spec.from[1]')]]]) });
    expect(rbacRules(listener)).toEqual({
      policies: { MeshTrafficPermission: { permissions: [{ any: true }], principals: [principal({ exact: 'spiffe://default/web' }), principal({ exact: 'spiffe://default/qa' })] } },
    });
    expect(grpcJsXdsDecode(LISTENER_TYPE_URL, listener)).toEqual({ name: LISTENER });
    expect(unapplied).toEqual([expect.objectContaining({ policy: { type: 'MeshTrafficPermission', name: 'mtp' }, field: 'spec.from[1].default.action' })]);
    expect(attributions).toEqual([
      expect.objectContaining({ resource: LISTENER, path: 'filter_chains[0].filters[0].typed_config.http_filters[0]', origins: [origin('spec.from[0]'), origin('spec.from[1]')] }),
    ]);
  });

  it('writes the `rules` API as ALLOW policies that exclude every deny match; SNI matches never hold and are reported', () => {
    const rule = (conf: MeshTrafficPermissionConf, item: string): InboundRule<MeshTrafficPermissionConf> => ({ conf, origins: [origin(item)] });
    const { listener, unapplied } = serverWith({
      inbound: new Map([
        [
          INBOUND,
          [
            rule({ deny: [{ spiffeID: { type: 'Exact', value: 'spiffe://default/bad' } }, { sni: { type: 'Exact', value: 'echo.svc' } }] }, 'spec.rules[0]'),
            rule({ allow: [{ spiffeID: { type: 'Prefix', value: 'spiffe://default' } }], allowWithShadowDeny: [{ spiffeID: { type: 'Exact', value: 'spiffe://default/new' } }] }, 'spec.rules[1]'),
          ],
        ],
      ]),
    });
    expect(rbacRules(listener)).toEqual({
      policies: {
        kri_mtp_default___mtp_: {
          permissions: [{ any: true }],
          principals: [
            {
              and_ids: {
                ids: [
                  { or_ids: { ids: [principal({ prefix: 'spiffe://default' }), principal({ exact: 'spiffe://default/new' })] } },
                  { not_id: principal({ exact: 'spiffe://default/bad' }) },
                ],
              },
            },
          ],
        },
      },
    });
    expect(grpcJsXdsDecode(LISTENER_TYPE_URL, listener)).toEqual({ name: LISTENER });
    expect(unapplied.map(({ field }) => field)).toEqual(['spec.rules[0].default.deny[1].sni', 'spec.rules[1].default.allowWithShadowDeny']);
  });

  it('allows nobody when the `rules` name no caller to allow', () => {
    const { listener } = serverWith({ inbound: new Map([[INBOUND, [{ conf: { deny: [{ spiffeID: { type: 'Exact', value: 'spiffe://default/bad' } }] }, origins: [origin('spec.rules[0]')] }]]]) });
    expect(rbacRules(listener)).toEqual({});
  });
});
