import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DataplaneResource, MeshResource } from '../../src/shared/resources.js';
import { createMetrics } from '../../src/main/metrics/metrics.js';
import { openDatabase } from '../../src/main/store/database.js';
import { SnapshotHistory } from '../../src/main/store/snapshot-history.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { follows } from '../../src/main/xds/context/carried-memo.js';
import type { MeshContext } from '../../src/main/xds/context/mesh-context.js';
import { generateProxy, generateProxyResources } from '../../src/main/xds/generate/profile.js';
import type { PolicyPlugin } from '../../src/main/policies/core/plugin.js';
import type { PolicyResource } from '../../src/main/policies/core/policy.js';
import { POLICY_PLUGINS } from '../../src/main/policies/registry.js';
import { SnapshotCache } from '../../src/main/xds/server/snapshot-cache.js';
import { ProxyTimeline } from '../../src/main/xds/status/proxy-timeline.js';
import { DataplaneWatchdog } from '../../src/main/xds/sync/dataplane-watchdog.js';
import { EncodedResourceCache } from '../../src/main/xds/sync/encoded-resource-cache.js';
import { SnapshotReconciler } from '../../src/main/xds/sync/reconcile.js';
import { loadDataplane } from '../../tools/load/fleet.js';
import { median } from '../../tools/load/stats.js';
import { policyChange } from './policy-change.js';
import { medianMicros, type BenchOptions, type BenchRow } from '../measure.js';

const TIME = '2026-01-01T00:00:00.000Z';
const SIZES = [10, 100, 1000];

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function mesh(): MeshResource {
  return { type: 'Mesh', meta: { mesh: '', name: 'default', version: 1, creationTime: TIME, modificationTime: TIME, labels: {} }, spec: {} };
}

function resource(input: ReturnType<typeof loadDataplane>): DataplaneResource {
  const { type: _type, mesh: meshName, name, ...spec } = input;
  return { type: 'Dataplane', meta: { mesh: meshName, name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} }, spec } as DataplaneResource;
}

/** The services the client proxies are in: each its own (svc-0 … svc-50), `replicas` proxies each. */
const CLIENT_SERVICES = 51;

/**
 * One backend per service, and client proxies with an outbound to every service (Kuma's default
 * reachability): one per client service, or `replicas` of each, in the order a tick might meet
 * them (every service once, then every service again).
 */
export function meshWithServices(
  services: number,
  policies: readonly PolicyResource[] = [],
  replicas = 1,
): { context: MeshContext; clients: DataplaneResource[]; dataplanes: DataplaneResource[] } {
  const backends = Array.from({ length: services }, (_, index) => resource(loadDataplane('backend', index, services)));
  const clients = Array.from({ length: CLIENT_SERVICES * replicas }, (_, index) => {
    const dataplane = resource(loadDataplane('client', services + index, services));
    const outbound = Array.from({ length: services }, (_, target) => ({ port: 10000 + target, tags: { 'kuma.io/service': `svc-${target}` } }));
    const inbound = dataplane.spec.networking.inbound!.map((entry) => ({ ...entry, tags: { ...entry.tags, 'kuma.io/service': `svc-${index % CLIENT_SERVICES}` } }));
    return { ...dataplane, spec: { networking: { ...dataplane.spec.networking, inbound, outbound } } } as DataplaneResource;
  });
  const dataplanes = [...backends, ...clients];
  return { context: buildMeshContext(mesh(), dataplanes, { policies }), clients, dataplanes };
}

/** A reconciler as production has one, over a real history on a temporary SQLite file. */
function reconcilerOn(dir: string, encoded = new EncodedResourceCache()) {
  const history = new SnapshotHistory(openDatabase(join(dir, `bench-${Math.random()}.db`)));
  return { reconciler: new SnapshotReconciler({ snapshots: new SnapshotCache(), history, encoded }), history };
}

function generateAndReconcile(reconciler: SnapshotReconciler, context: MeshContext, dataplane: DataplaneResource, plugins?: readonly PolicyPlugin[]): void {
  const id = `default.${dataplane.meta.name}`;
  const proxy = { id, dataplane, kind: 'envoy' as const };
  reconciler.reconcile(id, plugins ? generateProxy(context, proxy, plugins).resources : generateProxyResources(context, proxy));
}

/**
 * Generation + encode per proxy for 10/100/1000 services (cold: the first proxy after a change,
 * nothing shared yet; shared: each further proxy of the mesh), the cost of a tick that skips,
 * and how time and memory grow with proxies and services.
 */
export async function generation(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  const rows: BenchRow[] = [];
  try {
    for (const services of SIZES) {
      const cold: number[] = [];
      const shared: number[] = [];
      const { context, clients } = meshWithServices(services);
      for (let round = 0; round < (options.quick ? 5 : 15); round++) {
        // A context equal in content but a new object, linked to none: nothing memoized, nothing encoded yet.
        const fresh = { ...context };
        const { reconciler } = reconcilerOn(dir);
        const first = performance.now();
        generateAndReconcile(reconciler, fresh, clients[0]!);
        const second = performance.now();
        for (const client of clients.slice(1)) generateAndReconcile(reconciler, fresh, client);
        cold.push(second - first);
        shared.push((performance.now() - second) / (clients.length - 1));
      }
      rows.push(
        { benchmark: `generation + encode, ${services} services, first proxy (cold)`, value: median(cold), unit: 'ms/proxy', note: `${services} outbounds` },
        { benchmark: `generation + encode, ${services} services, next proxies (shared)`, value: median(shared), unit: 'ms/proxy', note: 'target ≤ 1 ms at 100' },
      );
    }
    rows.push(await skippedTick(dir));
    rows.push(...growth(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const POLICY_COUNTS = [0, 10, 50];

/** One realistic `to` conf per policy type, as a team writes them (index varies the values). */
const REALISTIC_CONFS: readonly { type: string; to: (index: number) => object }[] = [
  { type: 'MeshTimeout', to: (index) => ({ connectionTimeout: `${2 + (index % 5)}s`, idleTimeout: '1h', http: { requestTimeout: `${10 + index}s` } }) },
  { type: 'MeshRetry', to: (index) => ({ http: { numRetries: 1 + (index % 4), perTryTimeout: '2s', retryOn: ['5xx', 'Reset'] } }) },
  {
    type: 'MeshCircuitBreaker',
    to: (index) => ({ connectionLimits: { maxConnections: 100 + index, maxPendingRequests: 50 }, outlierDetection: { detectors: { totalFailures: { consecutive: 5 } } } }),
  },
  { type: 'MeshHealthCheck', to: () => ({ interval: '10s', timeout: '2s', unhealthyThreshold: 3, healthyThreshold: 1, http: { path: '/health' } }) },
  { type: 'MeshLoadBalancingStrategy', to: () => ({ loadBalancer: { type: 'LeastRequest' } }) },
];

/**
 * `count` policies over 100 services, as a team writes them: a third for the whole mesh, the others
 * for one client service; each with a `to` for the whole mesh and one for a destination. Every
 * sixth is a MeshHTTPRoute splitting one service's traffic 90/10 with the next; the others are
 * spread over the timeout, retry, circuit-breaker, health-check and load-balancing types.
 */
export function benchPolicies(count: number): PolicyResource[] {
  return Array.from({ length: count }, (_, index): PolicyResource => {
    const meta = { mesh: 'default', name: `policy-${index}`, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} };
    const targetRef = index % 3 === 0 ? { kind: 'Mesh' } : { kind: 'MeshService', name: `svc-${index % CLIENT_SERVICES}` };
    const destination = `svc-${(index * 7) % 100}`;
    if (index % 6 === 5) {
      const backendRefs = [
        { kind: 'MeshService', name: destination, weight: 90 },
        { kind: 'MeshService', name: `svc-${((index * 7) % 100) + 1}`, weight: 10 },
      ];
      const to = [{ targetRef: { kind: 'MeshService', name: destination }, rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/v2' } }], default: { backendRefs } }] }];
      return { type: 'MeshHTTPRoute', meta, spec: { targetRef, to } } as PolicyResource;
    }
    const { type, to } = REALISTIC_CONFS[index % REALISTIC_CONFS.length]!;
    return {
      type,
      meta,
      spec: {
        targetRef,
        to: [
          { targetRef: { kind: 'Mesh' }, default: to(index) },
          { targetRef: { kind: 'MeshService', name: destination }, default: to(index + 1) },
        ],
      },
    } as PolicyResource;
  });
}

/**
 * A changed tick at 100 services with 0, 10 and 50 policies: the whole configuration with the
 * policy plugins (stand-ins, and the registered ones at 50), per proxy, for the first proxy
 * after a change (rules computed) and the next ones (rules shared where their policies are the same).
 */
export async function policyGeneration(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  try {
    return [...policyTicks(dir, options), ...carriedTicks(dir, options), ...(await policyChange(options))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function policyTicks(dir: string, options: BenchOptions): BenchRow[] {
  const rows: BenchRow[] = [];
  // The same tick without any plugin, in the same run: this machine is shared, compare within a run.
  const types = POLICY_PLUGINS.map(({ descriptor }) => descriptor.type).join(', ');
  const runs: { label: string; count: number; plugins: readonly PolicyPlugin[]; note: string; replicas?: number }[] = [
    { label: 'no plugins', count: 0, plugins: [], note: 'profile only' },
    ...POLICY_COUNTS.map((count) => ({ label: `${count} policies`, count, plugins: POLICY_PLUGINS, note: types })),
    // A fleet as deployed: each service runs several proxies, which share everything but their own address.
    { label: '50 policies, 3 proxies per client service', count: 50, plugins: POLICY_PLUGINS, note: types, replicas: 3 },
  ];
  for (const { label, count, plugins, note, replicas } of runs) {
    const { context, clients } = meshWithServices(100, benchPolicies(count), replicas);
    const cold: number[] = [];
    const shared: number[] = [];
    const historyWrites: number[] = [];
    let encodedPerProxy = 0;
    for (let round = 0; round < (options.quick ? 5 : 15); round++) {
      // A context linked to none (carried-memo.ts): every proxy's inputs are new, nothing of a last tick to find.
      const fresh = { ...context };
      const encoded = new EncodedResourceCache();
      const { reconciler, history } = reconcilerOn(dir, encoded);
      const first = performance.now();
      generateAndReconcile(reconciler, fresh, clients[0]!, plugins);
      const second = performance.now();
      const encodedByFirst = encoded.size;
      for (const client of clients.slice(1)) generateAndReconcile(reconciler, fresh, client, plugins);
      cold.push(second - first);
      shared.push((performance.now() - second) / (clients.length - 1));
      encodedPerProxy = (encoded.size - encodedByFirst) / (clients.length - 1);
      // The tick's other half: each published snapshot is written to the history in a later turn.
      const flushStart = performance.now();
      history.flush();
      historyWrites.push((performance.now() - flushStart) / clients.length);
    }
    rows.push(
      { benchmark: `changed tick, 100 services, ${label}, first proxy`, value: median(cold), unit: 'ms/proxy', note },
      { benchmark: `changed tick, 100 services, ${label}, next proxies`, value: median(shared), unit: 'ms/proxy', note: 'target ≤ 1 ms at 50 policies' },
      // A count, not a time: what the next proxies could not share with the first one.
      { benchmark: `changed tick, 100 services, ${label}, resources encoded per next proxy`, value: encodedPerProxy, unit: 'resources' },
      { benchmark: `changed tick, 100 services, ${label}, history write`, value: median(historyWrites), unit: 'ms/proxy', note: 'after the tick, batched' },
    );
  }
  return rows;
}

/** The policies with policy `index`'s first `to` conf made as for `index + variant` (MeshTimeout and MeshRetry vary with it). */
function withEditedPolicy(policies: readonly PolicyResource[], index: number, variant: number): PolicyResource[] {
  return policies.map((policy, at) => {
    if (at !== index) return policy;
    const [first, ...rest] = policy.spec.to!;
    const to = [{ ...first!, default: REALISTIC_CONFS[index % REALISTIC_CONFS.length]!.to(index + variant) }, ...rest];
    return { ...policy, meta: { ...policy.meta, version: policy.meta.version + variant }, spec: { ...policy.spec, to } } as PolicyResource;
  });
}

/** A change a running mesh makes: the context of each round (`changed` alternates, so each round is a real change). */
export interface MeshChange {
  label: string;
  state: (changed: boolean, round: number) => MeshContext;
}

/**
 * The bench's mesh at 100 services and 50 policies, and the changes a changed tick is measured
 * for: each state is built anew (buildMeshContext, every object in it new), as the cache builds
 * a context after a change.
 */
export function carriedChanges(): { context: MeshContext; clients: DataplaneResource[]; changes: MeshChange[] } {
  const policies = benchPolicies(50);
  const { context, clients, dataplanes } = meshWithServices(100, policies);
  // One more endpoint of svc-7 (svc-7 is a destination of every client).
  const extraEndpoint = resource(loadDataplane('backend', 100 + 7, 100));
  const changes: MeshChange[] = [
    { label: 'one endpoint added or removed', state: (changed) => buildMeshContext(context.mesh, changed ? [...dataplanes, extraEndpoint] : dataplanes, { policies }) },
    // policy-1 is a MeshRetry of one client service (svc-1), policy-0 a MeshTimeout of the whole mesh.
    { label: 'one per-service policy edited', state: (changed, round) => buildMeshContext(context.mesh, dataplanes, { policies: changed ? withEditedPolicy(policies, 1, round) : policies }) },
    { label: 'one mesh-wide policy edited', state: (changed, round) => buildMeshContext(context.mesh, dataplanes, { policies: changed ? withEditedPolicy(policies, 0, round) : policies }) },
  ];
  return { context, clients, changes };
}

/**
 * A changed tick as a running meshdesk has one: the mesh's last tick generated and encoded every
 * client proxy; one change makes a new context, and every client is generated and reconciled
 * again, with the encoded cache, snapshots and history of the last tick. Per proxy: the whole
 * tick over its proxies, the first one included.
 */
function carriedTicks(dir: string, options: BenchOptions): BenchRow[] {
  const { context, clients, changes } = carriedChanges();
  const { reconciler, history } = reconcilerOn(dir);
  let last: MeshContext | undefined;
  const tick = (built: MeshContext) => {
    // Linked as the cache links the contexts it builds (carried-memo.ts).
    const tickContext = last ? follows(built, last) : built;
    last = tickContext;
    const start = performance.now();
    for (const client of clients) generateAndReconcile(reconciler, tickContext, client, POLICY_PLUGINS);
    const perProxy = (performance.now() - start) / clients.length;
    history.flush();
    return perProxy;
  };
  tick(context);
  return changes.map(({ label, state }) => {
    const perProxy: number[] = [];
    for (let round = 1; round <= (options.quick ? 4 : 12); round++) perProxy.push(tick(state(round % 2 === 1, round)));
    tick(state(false, 0));
    return { benchmark: `changed tick, 100 services, 50 policies, last tick carried: ${label}`, value: median(perProxy), unit: 'ms/proxy', note: 'whole tick / 51 proxies; target ≤ 1 ms' };
  });
}

/** A tick of a proxy whose MeshContext hash did not change, with its timeline record and metric. */
async function skippedTick(dir: string): Promise<BenchRow> {
  const { context, clients } = meshWithServices(100);
  const { reconciler } = reconcilerOn(dir);
  const proxy = { proxyId: `default.${clients[0]!.meta.name}`, dataplaneKey: { type: 'Dataplane' as const, mesh: 'default', name: clients[0]!.meta.name }, kind: 'envoy' as const, features: new Set<string>() };
  const watchdog = new DataplaneWatchdog({
    proxy,
    meshContexts: { get: async () => context },
    reconciler,
    timeline: new ProxyTimeline(),
    metrics: createMetrics(),
  });
  await watchdog.sync(); // the first tick generates; every later one skips
  const micros = await medianMicros(() => watchdog.sync(), { batch: 2000 });
  return { benchmark: 'skipped tick (context unchanged)', value: micros, unit: 'µs', note: 'target ≤ 20 µs' };
}

/**
 * Mean generation + encode per proxy, and heap per proxy, with P proxies (3 outbounds each, as
 * the load generator's) in a mesh of S services: the shared parts are built once per mesh.
 */
function growth(dir: string): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const proxies of SIZES) {
    for (const services of SIZES) {
      const dataplanes = Array.from({ length: proxies }, (_, index) => resource(loadDataplane('load', index, services)));
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const context = buildMeshContext(mesh(), dataplanes);
      const { reconciler, history } = reconcilerOn(dir);
      const start = performance.now();
      for (const dataplane of dataplanes) generateAndReconcile(reconciler, context, dataplane);
      const perProxyMs = (performance.now() - start) / proxies;
      history.flush();
      gc();
      const heapPerProxy = (process.memoryUsage().heapUsed - heapBefore) / proxies;
      rows.push(
        { benchmark: `growth: ${proxies} proxies × ${services} services, generation + encode`, value: perProxyMs, unit: 'ms/proxy' },
        { benchmark: `growth: ${proxies} proxies × ${services} services, heap`, value: heapPerProxy / 1024, unit: 'KB/proxy', note: 'context + snapshots' },
      );
      // Keep them alive until measured.
      void context.hash;
    }
  }
  return rows;
}
