import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ResourceInput } from '../../../../shared/resources.js';
import { CachedManager } from '../../../cache/cached-manager.js';
import { MeshContextCache } from '../../../cache/mesh-context-cache.js';
import { EventBus } from '../../../events/event-bus.js';
import { ResourceManager } from '../../../manager/resource-manager.js';
import { createMetrics, type Metrics } from '../../../metrics/metrics.js';
import { openDatabase, type Db } from '../../../store/database.js';
import { ResourceStore } from '../../../store/resource-store.js';
import { SnapshotHistory } from '../../../store/snapshot-history.js';
import type { ConnectedProxy } from '../../callbacks/proxy-callbacks.js';
import { SnapshotCache } from '../../server/snapshot-cache.js';
import { ProxyTimeline, now, type ProxyEvent } from '../../status/proxy-timeline.js';

/** `store.cache.expirationTime` of the fixture, on its own clock. */
export const CACHE_TTL = 1_000;

type TickEvent = Extract<ProxyEvent, { kind: 'tick' }>;

/**
 * The real parts a sync runs on, over a temporary SQLite file: uncached manager for writes, cached
 * manager and MeshContext cache on a clock the test moves, snapshot cache, history and timeline.
 */
export class SyncFixture {
  readonly events = new EventBus();
  readonly metrics: Metrics = createMetrics();
  readonly snapshots = new SnapshotCache();
  readonly timeline = new ProxyTimeline();
  readonly manager: ResourceManager;
  readonly cachedManager: CachedManager;
  readonly meshContexts: MeshContextCache;
  readonly history: SnapshotHistory;
  /** The caches' clock in ms; only `expireCaches` moves it. */
  time = 0;

  private constructor(
    readonly dir: string,
    readonly db: Db,
  ) {
    this.manager = new ResourceManager({ store: new ResourceStore(db), events: this.events });
    const now = () => this.time;
    this.cachedManager = new CachedManager({ delegate: this.manager, ttl: () => CACHE_TTL, metrics: this.metrics, now });
    this.meshContexts = new MeshContextCache({
      cachedManager: this.cachedManager,
      ttl: () => CACHE_TTL,
      metrics: this.metrics,
      now,
    });
    this.history = new SnapshotHistory(db);
  }

  static async create(): Promise<SyncFixture> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshdesk-'));
    const fixture = new SyncFixture(dir, openDatabase(path.join(dir, 'meshdesk.db')));
    await fixture.manager.ensureDefaultMesh();
    return fixture;
  }

  /** Lets every cached read and context expire, as one refresh interval past the TTL would. */
  expireCaches(): void {
    this.time += CACHE_TTL;
  }

  ticks(proxyId: string): TickEvent[] {
    return this.timeline.events(proxyId).filter((event): event is TickEvent => event.kind === 'tick');
  }

  /**
   * The proxy's `n`-th tick, as soon as the timeline records it (at once if it has): taken when it
   * is recorded, so that ticks after it cannot hide it.
   */
  nthTick(proxyId: string, n: number): Promise<TickEvent> {
    return new Promise((resolve) => {
      const take = (): boolean => {
        const tick = this.ticks(proxyId)[n - 1];
        if (tick) resolve(tick);
        return tick !== undefined;
      };
      if (take()) return;
      const stop = this.timeline.listen((id, event) => {
        if (id === proxyId && event.kind === 'tick' && take()) stop();
      });
    });
  }

  /** `xds_generation` sample counts by result, read from the registry like /metrics does. */
  async generationCounts(): Promise<Record<string, number>> {
    const { values } = await this.metrics.xdsGeneration.get();
    const counts = values.filter(({ metricName }) => metricName === 'xds_generation_count');
    return Object.fromEntries(counts.map(({ labels, value }) => [String(labels.result), value]));
  }

  close(): void {
    this.meshContexts.close();
    this.cachedManager.close();
    this.db.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** An Envoy sidecar of `service` at `address`, listening for it on 18080, with outbounds to the given services. */
export function sidecar(name: string, service: string, address: string, outbounds: string[] = []): ResourceInput<'Dataplane'> {
  return {
    type: 'Dataplane',
    mesh: 'default',
    name,
    labels: {},
    spec: {
      networking: {
        address,
        inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'http' } }],
        outbound: outbounds.map((target, index) => ({ port: 10001 + index, tags: { 'kuma.io/service': target } })),
      },
    },
  };
}

/** The Envoy proxy of Dataplane `name` in mesh default, connected on stream `streamId`. */
export function connectedProxy(name: string, streamId = 1): ConnectedProxy {
  const proxyId = `default.${name}`;
  return {
    streamId,
    streamOpenedAt: now(),
    proxyId,
    dataplaneKey: { type: 'Dataplane', mesh: 'default', name },
    kind: 'envoy',
    closed: new AbortController().signal,
    features: new Set(),
    node: { id: proxyId },
  };
}
