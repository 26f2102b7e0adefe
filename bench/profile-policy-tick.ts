// `tsx bench/profile-policy-tick.ts [policies]`: the next proxies of a changed tick at 100 services
// (the "policy generation" bench's nothing-to-reuse case), timed by phase and CPU-profiled without
// the first, cold proxy of each round.
// `tsx bench/profile-policy-tick.ts carried [endpoint|per-service|mesh-wide]`: every proxy of a
// changed tick that carries the last one (the bench's "last tick carried" rows, 50 policies).
// The profile goes to $PROFILE (default policy-tick.cpuprofile); its top frames are printed (bench/top-frames.ts).
// PROFILE=none times the phases without the profiler.
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataplaneResource } from '../src/shared/resources.js';
import { applyPolicyPlugins } from '../src/main/policies/core/apply-plugins.js';
import { POLICY_PLUGINS } from '../src/main/policies/registry.js';
import { openDatabase } from '../src/main/store/database.js';
import { SnapshotHistory } from '../src/main/store/snapshot-history.js';
import { follows } from '../src/main/xds/context/carried-memo.js';
import type { MeshContext } from '../src/main/xds/context/mesh-context.js';
import { generateProxyResources } from '../src/main/xds/generate/profile.js';
import { SnapshotCache } from '../src/main/xds/server/snapshot-cache.js';
import { EncodedResourceCache } from '../src/main/xds/sync/encoded-resource-cache.js';
import { SnapshotReconciler } from '../src/main/xds/sync/reconcile.js';
import { benchPolicies, carriedChanges, meshWithServices } from './suites/generation.js';
import { topFrames } from './top-frames.js';

const ROUNDS = 15;
/** Rounds left out of the figures and the profile: the JIT is still warming up. */
const WARM_UP = 3;
const CARRIED_CHANGES: Record<string, number> = { endpoint: 0, 'per-service': 1, 'mesh-wide': 2 };

const carried = process.argv[2] === 'carried';
const output = process.env.PROFILE ?? 'policy-tick.cpuprofile';
const profiling = output !== 'none';
const dir = mkdtempSync(join(tmpdir(), 'meshdesk-profile-'));
const history = new SnapshotHistory(openDatabase(join(dir, 'history.db')));
const session = new Session();
session.connect();
await session.post('Profiler.enable');
const phases = { profile: 0, plugins: 0, reconcile: 0 };
let measured = 0;

/** Generates and reconciles one proxy, adding each phase's time to the totals when `timed`. */
function tick(reconciler: SnapshotReconciler, context: MeshContext, dataplane: DataplaneResource, timed: boolean): void {
  const id = `default.${dataplane.meta.name}`;
  const proxy = { id, dataplane, kind: 'envoy' as const };
  const start = performance.now();
  const generated = generateProxyResources(context, proxy);
  const profiled = performance.now();
  const { resources } = applyPolicyPlugins(POLICY_PLUGINS, context, proxy, generated);
  const applied = performance.now();
  reconciler.reconcile(id, resources);
  if (!timed) return;
  phases.profile += profiled - start;
  phases.plugins += applied - profiled;
  phases.reconcile += performance.now() - applied;
  measured++;
}

let label: string;
try {
  if (carried) {
    const { context, clients, changes } = carriedChanges();
    const change = changes[CARRIED_CHANGES[process.argv[3] ?? 'endpoint'] ?? 0]!;
    label = `carried tick, ${change.label}, every proxy`;
    const reconciler = new SnapshotReconciler({ snapshots: new SnapshotCache(), history, encoded: new EncodedResourceCache() });
    let last = context;
    for (const client of clients) tick(reconciler, context, client, false);
    for (let round = 1; round <= ROUNDS; round++) {
      // Linked as the cache links the contexts it builds (carried-memo.ts).
      last = follows(change.state(round % 2 === 1, round), last);
      if (round === WARM_UP && profiling) await session.post('Profiler.start');
      for (const client of clients) tick(reconciler, last, client, round >= WARM_UP);
      history.flush();
    }
  } else {
    const policies = Number(process.argv[2] ?? 50);
    label = `${policies} policies, next proxy, nothing to reuse`;
    const { context, clients } = meshWithServices(100, benchPolicies(policies));
    for (let round = 0; round < ROUNDS; round++) {
      // A context equal in content but a new object, linked to none: nothing of a last tick to find (carried-memo.ts).
      const fresh = { ...context };
      const reconciler = new SnapshotReconciler({ snapshots: new SnapshotCache(), history, encoded: new EncodedResourceCache() });
      tick(reconciler, fresh, clients[0]!, false);
      if (round === WARM_UP && profiling) await session.post('Profiler.start');
      for (const client of clients.slice(1)) tick(reconciler, fresh, client, round >= WARM_UP);
      history.flush();
    }
  }
  if (profiling) writeFileSync(output, JSON.stringify((await session.post('Profiler.stop')).profile));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const perProxy = (ms: number) => (ms / measured).toFixed(2);
const total = phases.profile + phases.plugins + phases.reconcile;
console.log(`${label}: ${perProxy(total)} ms (profile ${perProxy(phases.profile)}, plugins ${perProxy(phases.plugins)}, reconcile ${perProxy(phases.reconcile)})${profiling ? ', profiler on' : ''}`);
if (profiling) console.log(topFrames(output, 30));
