import type { MeshContextCache } from '../../cache/mesh-context-cache.js';
import type { Settings } from '../../config/settings.js';
import type { Metrics } from '../../metrics/metrics.js';
import type { ProxyIdentities } from '../../mtls/proxy-identities.js';
import type { HistoryRecorder } from '../../store/snapshot-history.js';
import type { ConnectedProxy, ProxyCallbacks } from '../callbacks/proxy-callbacks.js';
import type { SnapshotCache } from '../server/snapshot-cache.js';
import type { PolicyEffects } from '../status/policy-effects.js';
import type { ProxyTimeline } from '../status/proxy-timeline.js';
import { DataplaneWatchdog, type DataplaneWatchdogOptions } from './dataplane-watchdog.js';
import { KeyedThrottle } from './keyed-throttle.js';
import { SnapshotReconciler } from './reconcile.js';
import { Watchdog, type Timers } from './watchdog.js';

const REFRESH_INTERVAL = 'xds.dataplaneConfigurationRefreshInterval';

export interface DataplaneSyncTrackerOptions {
  meshContexts: Pick<MeshContextCache, 'get' | 'onChange'>;
  snapshots: SnapshotCache;
  history: HistoryRecorder;
  settings: Pick<Settings, 'get' | 'onChange'>;
  timeline: ProxyTimeline;
  metrics: Metrics;
  /** Each proxy's policy effects, kept while its snapshot is. */
  policyEffects?: PolicyEffects;
  /** Tests bring timers they fire by hand. */
  timers?: Timers;
  /** Tests bring a generator that fails. */
  generate?: DataplaneWatchdogOptions['generate'];
  /** Mesh mTLS identities; without it proxies get none (tests of other things). */
  identities?: Pick<ProxyIdentities, 'identityFor' | 'forget'>;
}

interface Tracked {
  streamId: number;
  mesh: string;
  proxy: ConnectedProxy;
  watchdog: Watchdog;
}

/**
 * Keeps each connected proxy's configuration up to date (Kuma's DataplaneSyncTracker): one
 * watchdog per proxy, whose first tick runs inside `onProxyConnected`, so the stream waits for it
 * after the lifecycle's post-create wait (the chain order this product is about), and then one
 * tick per `xds.dataplaneConfigurationRefreshInterval`.
 *
 * When the cached view of a mesh changes (its MeshContext was rebuilt with other content), every
 * proxy of that mesh ticks at once instead of at its next tick, at most once per refresh interval
 * per mesh: a change reaches the proxies as soon as the cache shows it, and a kicked tick replaces
 * a scheduled one rather than adding to it. What the cache does not show yet (a registration
 * younger than the cache TTL) still waits for the cache, which is the wait this product is about.
 *
 * A proxy has at most one watchdog. When it reconnects on a new stream before the old one closed,
 * the new stream's watchdog replaces the old one and the old stream's late close changes nothing.
 */
export class DataplaneSyncTracker implements ProxyCallbacks {
  readonly #options: DataplaneSyncTrackerOptions;
  readonly #reconciler: SnapshotReconciler;
  readonly #tracked = new Map<string, Tracked>();
  /** Stops still waiting for a running tick, so that `close` can wait for them too. */
  readonly #stopping = new Set<Promise<void>>();
  readonly #meshResyncs: KeyedThrottle;
  readonly #unsubscribes: (() => void)[];
  #closed = false;

  constructor(options: DataplaneSyncTrackerOptions) {
    this.#options = options;
    this.#reconciler = new SnapshotReconciler({ snapshots: options.snapshots, history: options.history });
    this.#meshResyncs = new KeyedThrottle({
      run: (mesh) => this.#resyncMesh(mesh),
      interval: () => options.settings.get(REFRESH_INTERVAL),
      ...(options.timers && { timers: options.timers }),
    });
    this.#unsubscribes = [
      options.meshContexts.onChange((mesh) => this.#meshResyncs.request(mesh)),
      // Without this, shortening a long interval would apply only after the old one ran out.
      options.settings.onChange(REFRESH_INTERVAL, () => {
        for (const { watchdog } of this.#tracked.values()) watchdog.reschedule();
      }),
    ];
  }

  async onProxyConnected(proxy: ConnectedProxy): Promise<void> {
    if (this.#closed) return; // a stream racing the shutdown: it is about to be closed too
    const previous = this.#tracked.get(proxy.proxyId);
    if (previous) this.#stop(previous.watchdog); // its ticks can no longer publish: see DataplaneWatchdog.sync
    const watchdog = this.#watchdog(proxy);
    // Tracked before its first tick, so that a disconnect during that tick stops it.
    this.#tracked.set(proxy.proxyId, { streamId: proxy.streamId, mesh: proxy.dataplaneKey.mesh, proxy, watchdog });
    await watchdog.start();
  }

  onProxyDisconnected(proxy: ConnectedProxy): void {
    const tracked = this.#tracked.get(proxy.proxyId);
    if (tracked?.streamId !== proxy.streamId) return; // the proxy is served on a newer stream already
    this.#tracked.delete(proxy.proxyId);
    this.#stop(tracked.watchdog);
    this.#clear(proxy.proxyId);
    this.#options.identities?.forget(proxy.proxyId);
  }

  /** Ids of the proxies being kept in sync, sorted. */
  activeProxies(): string[] {
    return [...this.#tracked.keys()].sort();
  }

  /** The proxy connected as `proxyId` (its kind and features), if it is being kept in sync. */
  connectedProxy(proxyId: string): ConnectedProxy | undefined {
    return this.#tracked.get(proxyId)?.proxy;
  }

  /** Stops every watchdog, waits for running ticks, and clears the snapshots it kept. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribes.forEach((unsubscribe) => unsubscribe());
    this.#meshResyncs.close();
    for (const [proxyId, { watchdog }] of this.#tracked) {
      this.#stop(watchdog);
      this.#clear(proxyId);
    }
    this.#tracked.clear();
    await Promise.all(this.#stopping);
    this.#reconciler.flush();
  }

  #clear(proxyId: string): void {
    this.#reconciler.clear(proxyId);
    this.#options.policyEffects?.forget(proxyId);
  }

  #resyncMesh(mesh: string): void {
    for (const tracked of this.#tracked.values()) {
      if (tracked.mesh === mesh) tracked.watchdog.tickNow();
    }
  }

  #watchdog(proxy: ConnectedProxy): Watchdog {
    const { meshContexts, timeline, metrics, settings, timers, generate, policyEffects, identities } = this.#options;
    const dataplaneWatchdog = new DataplaneWatchdog({
      proxy,
      meshContexts,
      reconciler: this.#reconciler,
      timeline,
      metrics,
      policyEffects,
      generate,
      identities,
    });
    return new Watchdog({
      onTick: async (signal) => {
        await dataplaneWatchdog.sync(signal);
      },
      // sync() records its own failures as ticks; reaching here is a bug worth a log line.
      onError: (error) => console.error(`sync of proxy "${proxy.proxyId}" failed:`, error),
      interval: () => settings.get(REFRESH_INTERVAL),
      timers,
    });
  }

  #stop(watchdog: Watchdog): void {
    const stopped = watchdog.stop();
    this.#stopping.add(stopped);
    void stopped.then(() => this.#stopping.delete(stopped));
  }
}
