import { describe, expect, it } from 'vitest';
import { caseBaseResources, policyCases, rulesAsTested, type PolicyCase } from '../../../../test/kuma/support/policy-cases.js';
import { kumaCasesPresent } from '../../../../test/support/kuma-cases.js';
import { confValidationCases, expectMatchesGolden, runEnvoyPlugin } from '../../../../test/kuma/support/policy-plugin-run.js';
import { toKumaJson, type KumaJson } from '../../../../test/kuma/support/xds-leaves.js';
import { ViolationList } from '../../resources/validation-error.js';
import { LISTENER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { UnappliedField } from '../core/plugin.js';
import { emptyProxyRules } from '../core/rules.js';
import { checkPolicySpec } from '../core/validate-policy.js';
import { accessLogSocketPath } from './access-log.js';
import { TCP_BACKEND_NEEDS_KUMA_DP } from './envoy.js';
import { isFilePath, isUrl } from './kuma-validators.js';
import { meshAccessLogDescriptor } from './descriptor.js';
import { meshAccessLogPlugin } from './plugin.js';

/**
 * Kuma's test gives each destination the protocol in `serviceProtocols`; meshdesk reads it from the
 * endpoints' `kuma.io/protocol` tag, which the case's endpoints do not carry: add it.
 */
function withServiceProtocols(policyCase: PolicyCase): PolicyCase {
  const endpoints = structuredClone(policyCase.json.endpoints ?? {});
  for (const [service, list] of Object.entries(endpoints)) {
    const protocol = policyCase.json.serviceProtocols?.[service];
    if (protocol && protocol !== 'tcp') for (const endpoint of list) endpoint.tags = { ...endpoint.tags, 'kuma.io/protocol': protocol };
  }
  return { ...policyCase, json: { ...policyCase.json, endpoints } };
}

const cases = new Map(policyCases('meshaccesslog').map((policyCase) => [policyCase.id.split('/')[1]!, withServiceProtocols(policyCase)]));

/** The access logs of a listener's HttpConnectionManager or tcp_proxy. */
function accessLogs(listener: KumaJson | undefined): unknown {
  const chains = (listener?.filterChains ?? []) as { filters: { typedConfig: { accessLog?: unknown[] } }[] }[];
  return chains.flatMap((chain) => chain.filters.flatMap((filter) => filter.typedConfig.accessLog ?? []));
}

describe.skipIf(!kumaCasesPresent())('MeshAccessLog on Envoy, against Kuma v2.14.3 goldens', () => {
  const goldenCases: [string, string, string][] = [
    ['basic-outbound-route', 'outbound:127.0.0.1:27777', 'basic_outbound.listener.golden.yaml'],
    ['basic-inbound-route', 'inbound:127.0.0.1:17777', 'inbound_route.listener.golden.yaml'],
    ['outbound-tcp-backend-default-format', 'outbound:127.0.0.1:37777', 'outbound_tcp_backend_default_format.listener.golden.yaml'],
    ['outbound-file-backend-json-format', 'outbound:127.0.0.1:37777', 'outbound_file_backend_json_format.listener.golden.yaml'],
  ];
  it.each(goldenCases)('%s: the access log on %s', (name, listener, golden) => {
    const policyCase = cases.get(name)!;
    // Kuma's test runs kuma-dp's work directory in /tmp.
    const run = runEnvoyPlugin(meshAccessLogPlugin, policyCase, { proxy: (proxy) => ({ ...proxy, workDir: '/tmp' }) });
    expectMatchesGolden(policyCase.id, listener, accessLogs(run.after(LISTENER_TYPE_URL, listener)), accessLogs(policyCase.goldens.get(golden)!));
    expect(run.unapplied).toEqual([]);
    // The log is attributed; nothing but access logs was written (a `to` Mesh rule logs every outbound, Kuma's test builds one).
    const written = run.resources.attributions().map(({ resource, path }) => `${resource} ${path}`);
    expect(written).toContain(`${listener} filter_chains[0].filters[0].typed_config.access_log[0]`);
    expect(written.every((each) => each.endsWith('filter_chains[0].filters[0].typed_config.access_log[0]'))).toBe(true);
  });

  it('a Tcp backend on a proxy without kuma-dp: no log written, the backend reported', () => {
    const policyCase = cases.get('outbound-tcp-backend-default-format')!;
    const run = runEnvoyPlugin(meshAccessLogPlugin, policyCase);
    expect(accessLogs(run.after(LISTENER_TYPE_URL, 'outbound:127.0.0.1:37777'))).toEqual([]);
    expect(run.unapplied).toEqual([
      { policy: { type: 'MeshAccessLog', name: 'mal-outbound-tcp-backend' }, field: 'spec.to[0].default.backends[0]', reason: TCP_BACKEND_NEEDS_KUMA_DP },
    ]);
  });
});

describe.skipIf(!kumaCasesPresent())("MeshAccessLog's Kuma placeholders", () => {
  // Kuma's "outbound file backend with workload variables" (golden outbound_file_workload_identity):
  // labels zone-1, namespace kuma-demo, workload backend give "default zone-1 kri_wl_default_zone-1_kuma-demo_backend_".
  const caseWithFormat = (plain: string): PolicyCase => {
    const policyCase = cases.get('basic-outbound-route')!;
    const toRules = [{ subset: [], conf: { backends: [{ type: 'File', file: { path: '/tmp/log', format: { plain } } }] } }];
    return { ...policyCase, json: { ...policyCase.json, rulesAsTested: { toRules } } };
  };
  const loggedLine = (plain: string, labels: Record<string, string>) => {
    const run = runEnvoyPlugin(meshAccessLogPlugin, caseWithFormat(plain), {
      proxy: (proxy) => ({ ...proxy, dataplane: { ...proxy.dataplane, meta: { ...proxy.dataplane.meta, labels: { ...proxy.dataplane.meta.labels, ...labels } } } }),
    });
    const [log] = accessLogs(run.after(LISTENER_TYPE_URL, 'outbound:127.0.0.1:27777')) as { typedConfig: { logFormat: { textFormatSource: { inlineString: string } } } }[];
    return log!.typedConfig.logFormat.textFormatSource.inlineString;
  };

  it("writes %KUMA_WORKLOAD% as the KRI of the Dataplane's kuma.io/workload, and as nothing without one, as Kuma does", () => {
    expect(loggedLine('%KUMA_MESH% %KUMA_ZONE% %KUMA_WORKLOAD%', { 'kuma.io/zone': 'zone-1', 'k8s.kuma.io/namespace': 'kuma-demo', 'kuma.io/workload': 'backend' })).toBe(
      'default zone-1 kri_wl_default_zone-1_kuma-demo_backend_\n',
    );
    expect(loggedLine('[%KUMA_WORKLOAD%]', { 'kuma.io/zone': 'zone-1' })).toBe('[]\n');
  });
});

describe.skipIf(!kumaCasesPresent())('MeshAccessLog for proxyless gRPC', () => {
  it('reports the backends of the rules for its outbounds and changes nothing', () => {
    const policyCase = cases.get('basic-outbound-route')!;
    const base = caseBaseResources(policyCase, 'grpc');
    const before = base.resources.toResources();
    const unapplied: UnappliedField[] = [];
    meshAccessLogPlugin.applyGrpc({ ...base, rules: rulesAsTested(policyCase), rulesOf: () => emptyProxyRules(), unapplied: (field) => unapplied.push(field) });
    expect(base.resources.toResources()).toEqual(before);
    expect(unapplied.map(({ policy, field }) => `${policy.name} ${field}`)).toEqual(['mal-outbound-file spec.to[0].default.backends']);
  });
});

describe.skipIf(!kumaCasesPresent())("MeshAccessLog's conf validation, against Kuma's validator cases", () => {
  // Every case but those where a shared check refuses a whole list; compared on the violations in the confs.
  const confCases = confValidationCases('meshaccesslog', (field) => /\.default\./.test(field));
  it.each(confCases.map((each) => [each.name, each] as const))('%s', (_name, validationCase) => {
    const violations = new ViolationList();
    meshAccessLogPlugin.validate((validationCase.universalResource as { spec: never }).spec, violations);
    expect(violations.violations).toEqual(validationCase.own);
    expect(violations.violations).toHaveLength(validationCase.own.length);
  });

  it("names a field of another JSON type, as Kuma's schema check does, and takes any JSON as an OpenTelemetry body", () => {
    const violations = new ViolationList();
    const file = { type: 'File', file: { path: '/tmp/access.log', format: { type: 'Plain', plain: 7, omitEmptyValues: 'yes' } } };
    const otel = { type: 'OpenTelemetry', openTelemetry: { endpoint: 'otel:4317', attributes: [{ key: 'a', value: 5 }], body: { kvlistValue: [1, 'two'] } } };
    checkPolicySpec(meshAccessLogDescriptor, { from: [{ targetRef: { kind: 'Mesh' }, default: { backends: [file, otel] } }] }, violations);
    expect(violations.violations).toEqual([
      { field: 'spec.from[0].default.backends[0].file.format.plain', message: 'in body must be of type string: "integer"' },
      { field: 'spec.from[0].default.backends[0].file.format.omitEmptyValues', message: 'in body must be of type boolean: "string"' },
      { field: 'spec.from[0].default.backends[1].openTelemetry.attributes[0].value', message: 'in body must be of type string: "integer"' },
    ]);
  });
});

describe("MeshAccessLog's pieces", () => {
  it("puts kuma-dp's socket where Kuma does, cut to fit a Unix socket path", () => {
    expect(accessLogSocketPath('/tmp', 'backend', 'default')).toBe('/tmp/kuma-al-backend-default.sock');
    expect(accessLogSocketPath(`/${'d'.repeat(120)}`, 'backend', 'default')).toBe(`/${'d'.repeat(97)}.sock`);
  });

  it("reads addresses and paths as govalidator's IsURL and IsFilePath do", () => {
    for (const address of ['127.0.0.1:5000', 'logging.backend', 'http://logs.com', 'google.com']) expect(isUrl(address), address).toBe(true);
    for (const address of ['not_valid_url', '', '.example.com', 'abc']) expect(isUrl(address), address).toBe(false);
    for (const path of ['/tmp/logs.txt', 'C:\\logs\\access.log']) expect(isFilePath(path), path).toBe(true);
    for (const path of ['#not_valid', '', 'relative/path']) expect(isFilePath(path), path).toBe(false);
  });
});

describe("MeshAccessLog's OpenTelemetry backend checks", () => {
  it('wants exactly one of endpoint and backendRef, a host:port endpoint and static attribute names', () => {
    const violations = new ViolationList();
    const otel = (openTelemetry: Record<string, unknown>) => ({ type: 'OpenTelemetry', openTelemetry });
    meshAccessLogPlugin.validate(
      {
        targetRef: { kind: 'Mesh' },
        to: [
          {
            targetRef: { kind: 'Mesh' },
            default: {
              backends: [
                otel({ endpoint: 'otel:4317', backendRef: { kind: 'MeshOpenTelemetryBackend', labels: { a: 'b' } } }),
                otel({}),
                otel({ endpoint: 'http://otel:4317/v1' }),
                otel({ backendRef: { kind: 'Mesh', labels: {} } }),
                otel({ endpoint: 'otel:4317', attributes: [{ key: '%KUMA_MESH%', value: 'x' }, { key: 'otel.x', value: 'x' }, { key: 'Mesh', value: 'x' }, { key: 'kuma.mesh', value: 'x' }] }),
              ],
            },
          },
        ],
      } as never,
      violations,
    );
    const at = (index: number) => `spec.to[0].default.backends[${index}].openTelemetry`;
    expect(violations.violations).toEqual([
      { field: at(0), message: 'openTelemetry must have only one type defined: endpoint, backendRef' },
      { field: at(1), message: 'openTelemetry must have exactly one defined: endpoint, backendRef' },
      { field: `${at(2)}.endpoint`, message: 'must be in host:port format, not a URL' },
      { field: `${at(3)}.backendRef.kind`, message: '"kind" must be one of ["MeshOpenTelemetryBackend"]' },
      { field: `${at(3)}.backendRef`, message: 'backendRef must have exactly one defined: labels' },
      { field: `${at(4)}.attributes[0].key`, message: 'must be a static OpenTelemetry attribute name; placeholders are only supported in values' },
      { field: `${at(4)}.attributes[1].key`, message: "must not use the reserved OpenTelemetry prefix 'otel.'" },
      { field: `${at(4)}.attributes[2].key`, message: expect.stringContaining('must start with a lowercase letter') },
    ]);
  });
});

describe.skipIf(!kumaCasesPresent())('MeshAccessLog inbound rules with matches', () => {
  it("keeps a matched rule's logs to the connections its match names (Kuma's CEL), with the TLS inspector an SNI match needs", () => {
    const policyCase = cases.get('basic-inbound-route')!;
    const base = caseBaseResources(policyCase);
    const file = (path: string) => ({ backends: [{ type: 'File' as const, file: { path } }] });
    const origins = [{ type: 'MeshAccessLog' as const, mesh: 'default', name: 'mal-rules', item: 'spec.rules[0]' }];
    meshAccessLogPlugin.applyEnvoy({
      ...base,
      rules: {
        ...emptyProxyRules(),
        inbound: new Map([
          [
            '127.0.0.1:17777',
            [
              { match: { spiffeID: { type: 'Exact', value: 'spiffe://default/web' } }, conf: file('/tmp/web.log'), origins },
              { match: { spiffeID: { type: 'Prefix', value: 'spiffe://default/ns' }, sni: { type: 'Exact', value: 'backend.mesh' } }, conf: file('/tmp/ns.log'), origins },
              { conf: file('/tmp/all.log'), origins },
            ],
          ],
        ]),
      },
      rulesOf: () => emptyProxyRules(),
      unapplied: () => {},
    });
    const listener = toKumaJson(LISTENER_TYPE_URL, base.resources.get(LISTENER_TYPE_URL, 'inbound:127.0.0.1:17777')!);
    const logs = accessLogs(listener) as { filter?: { extensionFilter: { typedConfig: { expression: string } } }; typedConfig: { path: string } }[];
    expect(logs.map((log) => [log.typedConfig.path, log.filter?.extensionFilter.typedConfig.expression])).toEqual([
      ['/tmp/web.log', 'connection.uri_san_peer_certificate == "spiffe://default/web"'],
      ['/tmp/ns.log', 'connection.uri_san_peer_certificate.startsWith("spiffe://default/ns") && connection.requested_server_name == "backend.mesh"'],
      ['/tmp/all.log', undefined],
    ]);
    expect(listener.listenerFilters).toEqual([
      { name: 'envoy.filters.listener.tls_inspector', typedConfig: { '@type': 'type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector' } },
    ]);
  });
});
