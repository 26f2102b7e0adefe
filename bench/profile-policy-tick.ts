// `tsx bench/profile-policy-tick.ts [policies]`: the next proxies of a changed tick at 100 services
// (the "policy generation" bench's worst case, nothing reused), timed by phase and CPU-profiled
// without the first, cold proxy of each round; the profile goes to $PROFILE (default policy-tick.cpuprofile), and its
// top frames are printed (bench/top-frames.ts).
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataplaneResource } from '../src/shared/resources.js';
import { POLICY_PLUGINS } from '../src/main/policies/registry.js';
import { openDatabase } from '../src/main/store/database.js';
import { SnapshotHistory } from '../src/main/store/snapshot-history.js';
import { generateProxy } from '../src/main/xds/generate/profile.js';
import { SnapshotCache } from '../src/main/xds/server/snapshot-cache.js';
import { EncodedResourceCache } from '../src/main/xds/sync/encoded-resource-cache.js';
import { SnapshotReconciler } from '../src/main/xds/sync/reconcile.js';
import { benchPolicies, meshWithServices } from './suites/generation.js';
import { topFrames } from './top-frames.js';

const ROUNDS = 15;
/** Rounds left out of the figures and the profile: the JIT is still warming up. */
const WARM_UP = 3;

const policies = Number(process.argv[2] ?? 50);
const output = process.env.PROFILE ?? 'policy-tick.cpuprofile';
const { context, clients } = meshWithServices(100, benchPolicies(policies));
const dir = mkdtempSync(join(tmpdir(), 'meshdesk-profile-'));
const history = new SnapshotHistory(openDatabase(join(dir, 'history.db')));
const session = new Session();
session.connect();
await session.post('Profiler.enable');
let generateMs = 0;
let reconcileMs = 0;
let measured = 0;
try {
  for (let round = 0; round < ROUNDS; round++) {
    // A context equal in content but a new object, linked to none: nothing of a last tick to find (carried-memo.ts).
    const fresh = { ...context };
    const reconciler = new SnapshotReconciler({ snapshots: new SnapshotCache(), history, encoded: new EncodedResourceCache() });
    const tick = (dataplane: DataplaneResource) => {
      const id = `default.${dataplane.meta.name}`;
      const start = performance.now();
      const { resources } = generateProxy(fresh, { id, dataplane, kind: 'envoy' }, POLICY_PLUGINS);
      const generated = performance.now();
      reconciler.reconcile(id, resources);
      return { generate: generated - start, reconcile: performance.now() - generated };
    };
    tick(clients[0]!);
    if (round === WARM_UP) await session.post('Profiler.start');
    for (const client of clients.slice(1)) {
      const { generate, reconcile } = tick(client);
      if (round < WARM_UP) continue;
      generateMs += generate;
      reconcileMs += reconcile;
      measured++;
    }
    history.flush();
  }
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(output, JSON.stringify(profile));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const perProxy = (ms: number) => (ms / measured).toFixed(2);
console.log(`${policies} policies, next proxy: ${perProxy(generateMs + reconcileMs)} ms (generate ${perProxy(generateMs)}, reconcile ${perProxy(reconcileMs)}), profiler on`);
console.log(topFrames(output, 30));
