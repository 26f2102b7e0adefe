import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../../src/main/events/event-bus.js';
import { ResourceManager } from '../../src/main/manager/resource-manager.js';
import { openDatabase } from '../../src/main/store/database.js';
import { ResourceStore } from '../../src/main/store/resource-store.js';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { generateProxy } from '../../src/main/xds/generate/profile.js';
import { encodeResource } from '../../src/main/xds/protocol/encode.js';
import { XDS_TYPE_URLS } from '../../src/main/xds/protocol/type-urls.js';
import { echoClient, startEchoServer } from '../../test/support/echo-server.js';
import { ControlPlaneApi } from '../../tools/load/control-plane-api.js';
import { Fleet, loadDataplane } from '../../tools/load/fleet.js';
import { startMeshdesk } from '../../tools/load/meshdesk-process.js';
import { median, percentile } from '../../tools/load/stats.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const STRATEGIES = ['invalidate', 'sleep', 'none'] as const;
const SERVICES = 10;
/** Proxies connected before the measured ones, so that the mesh's context is cached and warm, as in a running mesh. */
const BACKGROUND_PROXIES = 20;

/**
 * Time to first config (stream open → CDS, EDS and LDS ACKed) per post-create strategy at a 1 s
 * cache TTL and refresh interval, one proxy at a time against a headless meshdesk in its own
 * process, side by side with the physical floor measured in this run.
 */
export async function firstConfig(options: BenchOptions): Promise<BenchRow[]> {
  const samples = options.quick ? 8 : 25;
  const floor = await physicalFloor();
  const rows: BenchRow[] = [
    { benchmark: 'floor: SQLite upsert (synchronous = FULL)', value: floor.upsert, unit: 'ms' },
    { benchmark: 'floor: one generation', value: floor.generation, unit: 'ms' },
    { benchmark: 'floor: one encode (cold)', value: floor.encode, unit: 'ms' },
    { benchmark: 'floor: loopback gRPC round trip', value: floor.roundTrip, unit: 'ms' },
    { benchmark: 'floor: total', value: floor.total, unit: 'ms' },
  ];
  for (const strategy of STRATEGIES) {
    const meshdesk = await startMeshdesk();
    const fleet = new Fleet({ ads: meshdesk.ads, services: SERVICES });
    try {
      const api = new ControlPlaneApi(meshdesk.apiUrl);
      await api.updateSettings({
        'xds.postCreateStrategy': strategy,
        'store.cache.expirationTime': '1s',
        'xds.dataplaneConfigurationRefreshInterval': '1s',
      });
      await fleet.connect(BACKGROUND_PROXIES);
      const times: number[] = [];
      for (let sample = 0; sample < samples; sample++) times.push(...(await fleet.connect(1)));
      const note = strategy === 'invalidate' ? 'target ≤ 30 ms' : strategy === 'sleep' ? 'target ≤ TTL + 30 ms = 1030 ms' : 'the first tick misses the Dataplane; a later one finds it once the cache expired';
      rows.push(
        { benchmark: `time to first config, ${strategy}, median`, value: median(times), unit: 'ms', note },
        { benchmark: `time to first config, ${strategy}, p99`, value: percentile(times, 99), unit: 'ms' },
        { benchmark: `time to first config, ${strategy}, median / floor`, value: median(times) / floor.total, unit: '×' },
      );
    } finally {
      fleet.close();
      await meshdesk.stop();
    }
  }
  return rows;
}

/** One SQLite upsert + one generation + one encode + one loopback round trip: the least a first config can cost. */
async function physicalFloor(): Promise<{ upsert: number; generation: number; encode: number; roundTrip: number; total: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  const db = openDatabase(join(dir, 'meshdesk.db'));
  const echo = await startEchoServer();
  const client = echoClient(`127.0.0.1:${echo.port}`);
  try {
    const manager = new ResourceManager({ store: new ResourceStore(db), events: new EventBus() });
    await manager.ensureDefaultMesh();
    const inputs = Array.from({ length: 40 }, (_, index) => loadDataplane('floor', index, SERVICES));
    const upserts: number[] = [];
    for (const { type: _type, mesh, name, ...spec } of inputs) {
      const start = performance.now();
      await manager.upsert({ type: 'Dataplane', mesh, name, labels: {}, spec: spec as never });
      upserts.push(performance.now() - start);
    }
    const meshResource = await manager.get('Mesh', { mesh: '', name: 'default' });
    const context = buildMeshContext(meshResource, await manager.list('Dataplane', { mesh: 'default' }));
    const generations: number[] = [];
    const encodes: number[] = [];
    for (const dataplane of context.dataplanesByName.values()) {
      const start = performance.now();
      const { resources } = generateProxy(context, { id: `default.${dataplane.meta.name}`, dataplane, kind: 'envoy' });
      const generated = performance.now();
      for (const typeUrl of XDS_TYPE_URLS) for (const { resource } of resources[typeUrl]) encodeResource(typeUrl, resource);
      generations.push(generated - start);
      encodes.push(performance.now() - generated);
    }
    await client.echo('warm-up', 60_000); // the first call connects
    const trips: number[] = [];
    for (let trip = 0; trip < 200; trip++) {
      const start = performance.now();
      await client.echo('ping', 60_000);
      trips.push(performance.now() - start);
    }
    const floor = { upsert: median(upserts), generation: median(generations), encode: median(encodes), roundTrip: median(trips) };
    return { ...floor, total: floor.upsert + floor.generation + floor.encode + floor.roundTrip };
  } finally {
    client.close();
    await echo.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
