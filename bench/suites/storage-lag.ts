import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { EventBus } from '../../src/main/events/event-bus.js';
import type { ResourceManager as Manager } from '../../src/main/manager/interfaces.js';
import { ResourceManager } from '../../src/main/manager/resource-manager.js';
import { openDatabase } from '../../src/main/store/database.js';
import { ResourceStore } from '../../src/main/store/resource-store.js';
import { SnapshotHistory, type HistoryRecorder, type NewSnapshotRecord } from '../../src/main/store/snapshot-history.js';
import { RemoteResourceManager } from '../../src/main/store/worker/remote-resource-manager.js';
import { RemoteSnapshotHistory } from '../../src/main/store/worker/remote-snapshot-history.js';
import { StorageClient } from '../../src/main/store/worker/storage-client.js';
import type { ResourceInput } from '../../src/shared/resources.js';
import { median } from '../../tools/load/stats.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const PROXIES = 1000;
const CLUSTERS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';

interface Storage {
  manager: Manager;
  history: HistoryRecorder;
  /** Resolves once the history has written what was handed to it. */
  historyWritten(): Promise<void>;
  close(): Promise<void>;
}

/** The stores on the event loop's own thread, as before the storage worker. */
function inThread(dir: string): Storage {
  const db = openDatabase(join(dir, 'meshdesk.db'));
  const manager = new ResourceManager({ store: new ResourceStore(db), events: new EventBus() });
  const history = new SnapshotHistory(db);
  return {
    manager,
    history,
    historyWritten: async () => {
      while (history.writeStatus().pendingSnapshots > 0) await new Promise((resolve) => setImmediate(resolve));
    },
    close: async () => {
      history.close();
      db.close();
    },
  };
}

async function inWorker(dir: string): Promise<Storage & { client: StorageClient }> {
  const client = await StorageClient.start(join(dir, 'meshdesk.db'));
  const history = new RemoteSnapshotHistory(client);
  return {
    client,
    manager: new RemoteResourceManager(client, new EventBus()),
    history,
    historyWritten: async () => void (await history.writeStatus()),
    close: () => client.close(),
  };
}

/** The main thread's event-loop delay while `work` runs: [longest, p99], in ms. */
async function lagDuring(work: () => Promise<unknown>): Promise<[number, number]> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  await work();
  delay.disable();
  return [delay.max / 1e6, delay.percentile(99) / 1e6];
}

function dataplane(round: number, index: number): ResourceInput {
  return {
    type: 'Dataplane',
    mesh: 'default',
    name: `dp-${round}-${index}`,
    labels: {},
    spec: { networking: { address: '127.0.0.1', inbound: [{ port: 10_000 + index, tags: { 'kuma.io/service': `svc-${round}-${index}` } }] } },
  } as ResourceInput;
}

/** A published snapshot of a proxy with a few KB of config per type, as the history records it. */
function snapshot(round: number, proxy: number): NewSnapshotRecord {
  const resources = Array.from({ length: 20 }, (_, index) => {
    const name = `cluster-${round}-${proxy}-${index}`;
    return { name, resource: { name, connect_timeout: '5s', type: 'EDS' } };
  });
  return { proxyId: `default.p${proxy}`, createdAt: Date.now(), versions: { [CLUSTERS]: `v${round}-${proxy}` }, changedTypes: [CLUSTERS], resources: { [CLUSTERS]: resources } };
}

/**
 * What the disk costs the event loop that serves ADS (issue 27: "the event loop never waits on the
 * disk"): the main thread's event-loop delay during a registration storm (1,000 Dataplanes
 * upserted at once) and during the history of 1,000 published snapshots, with the stores on the
 * event loop's thread (as before) and in the storage worker; and during a 1 s stall of the storage
 * worker's thread, which on the event loop's own thread would be a 1 s stall of every stream.
 */
export async function storageLag(options: BenchOptions): Promise<BenchRow[]> {
  const rounds = options.quick ? 2 : 5;
  const rows: BenchRow[] = [];
  for (const [where, open] of [
    ['event-loop thread', async (dir: string) => inThread(dir)],
    ['storage worker', inWorker],
  ] as const) {
    const storm: Array<[number, number]> = [];
    const history: Array<[number, number]> = [];
    const stormTotal: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
      const storage = await open(dir);
      try {
        await storage.manager.upsert({ type: 'Mesh', mesh: '', name: 'default', labels: {}, spec: {} } as ResourceInput);
        const start = performance.now();
        storm.push(await lagDuring(() => Promise.all(Array.from({ length: PROXIES }, (_, index) => storage.manager.upsert(dataplane(round, index))))));
        stormTotal.push(performance.now() - start);
        history.push(
          await lagDuring(async () => {
            for (let proxy = 0; proxy < PROXIES; proxy++) storage.history.recordSoon(snapshot(round, proxy));
            await storage.historyWritten();
          }),
        );
      } finally {
        await storage.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    rows.push(
      { benchmark: `storage lag: ${PROXIES} upserts at once, ${where}, longest delay`, value: median(storm.map(([max]) => max)), unit: 'ms' },
      { benchmark: `storage lag: ${PROXIES} upserts at once, ${where}, p99 delay`, value: median(storm.map(([, p99]) => p99)), unit: 'ms' },
      { benchmark: `storage lag: ${PROXIES} upserts at once, ${where}, all written`, value: median(stormTotal), unit: 'ms' },
      { benchmark: `storage lag: ${PROXIES} history snapshots, ${where}, longest delay`, value: median(history.map(([max]) => max)), unit: 'ms' },
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  const storage = await inWorker(dir);
  try {
    const stalls: Array<[number, number]> = [];
    for (let round = 0; round < rounds; round++) {
      stalls.push(
        await lagDuring(async () => {
          const stall = storage.client.stall();
          await stall.holding;
          setTimeout(stall.release, 1000);
          await stall.resumed;
        }),
      );
    }
    rows.push({ benchmark: 'storage lag: 1 s stall of the storage worker, longest delay', value: median(stalls.map(([max]) => max)), unit: 'ms' });
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
