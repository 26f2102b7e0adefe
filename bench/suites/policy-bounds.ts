import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { DataplaneResource } from '../../src/shared/resources.js';
import { dataplaneResource, meshResource, policyResource } from '../../src/main/policies/core/testing/resources.js';
import type { PolicySpec } from '../../src/main/policies/core/policy.js';
import { computeProxyRules } from '../../src/main/policies/core/proxy-rules.js';
import { permissionMatrix } from '../../src/main/policies/meshtrafficpermission/permission-matrix.js';
import { POLICY_PLUGINS } from '../../src/main/policies/registry.js';
import { validateResource } from '../../src/main/resources/validate.js';
import { ValidationError } from '../../src/main/resources/validation-error.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { generateProxy } from '../../src/main/xds/generate/profile.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const MTLS = { mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } };

/** A client proxy with an outbound to each of `services` services, and the web service it calls. */
function clientAndWeb(services: number): DataplaneResource[] {
  const client = dataplaneResource('client-1', [{ port: 8080, tags: { 'kuma.io/service': 'client' } }]);
  const outbound = Array.from({ length: services }, (_, index) => ({ port: 10000 + index, tags: { 'kuma.io/service': index === 0 ? 'web' : `svc-${index}` } }));
  const web = dataplaneResource('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }], { address: '10.0.0.2' });
  return [{ ...client, spec: { networking: { ...client.spec.networking, outbound } } } as DataplaneResource, web];
}

const permissionFrom = (keys: number) =>
  Array.from({ length: keys }, (_, index) => ({ targetRef: { kind: 'MeshSubset', tags: { [`k${index}`]: `v${index}` } }, default: { action: 'Allow' } }));
const timeoutTo = (items: number) =>
  Array.from({ length: items }, (_, index) => ({ targetRef: { kind: 'MeshService', name: `svc-${index}` }, default: { connectionTimeout: '2s', http: { requestTimeout: '3s' } } }));
const routeTo = (rules: number) => [
  {
    targetRef: { kind: 'MeshService', name: 'web' },
    rules: Array.from({ length: rules }, (_, index) => ({ matches: [{ path: { type: 'PathPrefix', value: `/p${index}` } }], default: { backendRefs: [{ kind: 'MeshService', name: 'web' }] } })),
  },
];

/** A policy as the API takes it: validated, then (if accepted) its rules and the client's generation, as a tick makes them. */
function applyPolicy(type: string, spec: PolicySpec): () => string {
  return () => {
    try {
      validateResource({ type, mesh: 'default', name: 'bench', spec });
    } catch (error) {
      if (error instanceof ValidationError) return 'refused';
      throw error;
    }
    const dataplanes = clientAndWeb(50);
    const context = buildMeshContext(meshResource(), dataplanes, { policies: [policyResource(type as never, 'bench', spec)] });
    const computed = computeProxyRules(context, dataplanes[1]!, type as never);
    generateProxy(context, { id: 'default.client-1', dataplane: dataplanes[0]!, kind: 'envoy' }, POLICY_PLUGINS);
    return computed.warnings.length > 0 ? 'accepted, rules not built (warning)' : 'accepted';
  };
}

/** `GET /meshes/default/_permissions` as the route answers it (one page of at most 1,000 cells), on 2,000 Dataplanes of 100 services. */
function permissionsPage(): string {
  const dataplanes = Array.from({ length: 2000 }, (_, index) =>
    dataplaneResource(`dp-${index}`, [{ port: 8080, tags: { 'kuma.io/service': `svc-${index % 100}`, instance: `${index}` } }], { address: `10.1.${Math.floor(index / 250)}.${index % 250}` }),
  );
  const context = buildMeshContext({ ...meshResource(), spec: MTLS } as never, dataplanes, { policies: [] });
  try {
    return `${Math.round(JSON.stringify(permissionMatrix(context, { offset: 0, size: 1000 })).length / 1024)} KB answered`;
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The longest the event loop was held (perf_hooks' event-loop delay histogram) while `work` ran once, in ms. */
async function longestStall(work: () => string): Promise<{ ms: number; outcome: string }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, 30));
  const outcome = work();
  await new Promise((resolve) => setTimeout(resolve, 30));
  histogram.disable();
  return { ms: histogram.max / 1e6, outcome };
}

/**
 * Issue 27's inputs that held the event loop for seconds, at meshdesk's bounds (docs/limits.md)
 * and past them: the longest stall while each is validated and, if accepted, its rules built and
 * a proxy generated; and one page of `_permissions` on 2,000 Dataplanes. Each runs in a fresh
 * mesh context (no memo from an earlier round).
 */
export async function policyBounds(options: BenchOptions): Promise<BenchRow[]> {
  const inputs: { name: string; work: () => string }[] = [
    { name: 'MeshTrafficPermission, from with 10 tag keys (1,024 subsets, the bound)', work: applyPolicy('MeshTrafficPermission', { targetRef: { kind: 'Mesh' }, from: permissionFrom(10) } as PolicySpec) },
    { name: 'MeshTimeout, 1,000 to items (the bound)', work: applyPolicy('MeshTimeout', { targetRef: { kind: 'Mesh' }, to: timeoutTo(1000) } as PolicySpec) },
    { name: 'MeshHTTPRoute, 1,000 rules (the bound)', work: applyPolicy('MeshHTTPRoute', { targetRef: { kind: 'Mesh' }, to: routeTo(1000) } as PolicySpec) },
    { name: '_permissions page, 2,000 Dataplanes', work: permissionsPage },
    { name: 'MeshTrafficPermission, from with 16 tag keys (past the bound)', work: applyPolicy('MeshTrafficPermission', { targetRef: { kind: 'Mesh' }, from: permissionFrom(16) } as PolicySpec) },
    { name: 'MeshTimeout, 8,000 to items (past the bound)', work: applyPolicy('MeshTimeout', { targetRef: { kind: 'Mesh' }, to: timeoutTo(8000) } as PolicySpec) },
    { name: 'MeshHTTPRoute, 3,000 rules (past the bound)', work: applyPolicy('MeshHTTPRoute', { targetRef: { kind: 'Mesh' }, to: routeTo(3000) } as PolicySpec) },
  ];
  const rows: BenchRow[] = [];
  for (const { name, work } of inputs) {
    const stalls: number[] = [];
    let outcome = '';
    for (let round = 0; round < (options.quick ? 1 : 3); round++) {
      const result = await longestStall(work);
      stalls.push(result.ms);
      outcome = result.outcome;
    }
    rows.push({ benchmark: `longest event-loop stall: ${name}`, value: Math.max(...stalls), unit: 'ms', note: outcome });
  }
  return rows;
}
