import type { CachedManager } from '../cache/cached-manager.js';
import { MeshContextCache } from '../cache/mesh-context-cache.js';
import type { Settings } from '../config/settings.js';
import type { EventBus } from '../events/event-bus.js';
import type { ResourceManager } from '../manager/interfaces.js';
import type { Metrics } from '../metrics/metrics.js';
import { grpcCertificateFiles, removeGrpcCertificates, writeGrpcCertificates } from '../mtls/grpc-certificate-files.js';
import { MeshCaStore } from '../mtls/mesh-ca-store.js';
import { ProxyIdentities } from '../mtls/proxy-identities.js';
import { RemoteProxyRecords } from '../store/worker/remote-proxy-records.js';
import { RemoteSnapshotHistory } from '../store/worker/remote-snapshot-history.js';
import { remoteTokenTable } from '../store/worker/remote-tables.js';
import type { StorageClient } from '../store/worker/storage-client.js';
import { DataplaneTokens } from '../security/dataplane-tokens.js';
import { loadOrCreateTokenSigningKey } from '../security/token-signing-key.js';
import { storedMesh } from '../security/token-requirement.js';
import type { ControlPlaneCert } from '../tls/control-plane-cert.js';
import { AuthCallbacks } from './callbacks/auth.js';
import { callbacksChain, type ChainLink } from './callbacks/chain.js';
import { DataplaneLifecycle } from './callbacks/dataplane-lifecycle.js';
import { NackBackoff } from './callbacks/nack-backoff.js';
import { StatusTracker } from './callbacks/status-tracker.js';
import { AdsServer } from './server/ads-server.js';
import { SnapshotCache } from './server/snapshot-cache.js';
import { PolicyEffects } from './status/policy-effects.js';
import { DEPARTED_PROXIES_KEPT, DepartedProxies } from './status/departed-proxies.js';
import { now, ProxyTimeline } from './status/proxy-timeline.js';
import { restorePreviousRun } from './status/previous-run.js';
import { DataplaneSyncTracker } from './sync/dataplane-sync-tracker.js';
import { warmUpEncoders } from './generate/warm-up.js';
import { kumaDpBootstrapHandler } from './kuma-dp/bootstrap-handler.js';

export interface XdsDependencies {
  host: string;
  port: number;
  /** The storage worker: history, proxy records and tokens are kept there. */
  storage: StorageClient;
  manager: ResourceManager;
  cachedManager: CachedManager;
  settings: Settings;
  metrics: Metrics;
  events: EventBus;
  /** The ADS port's TLS identity: with it the port also serves kuma-dp (TLS gRPC and `POST /bootstrap`). */
  controlPlaneCert: ControlPlaneCert;
  /** Where mesh CAs and gRPC proxies' certificate files are kept. */
  dataDir: string;
}

/** The xDS side of the core, running: what the API's inspection routes read. */
export interface Xds {
  server: AdsServer;
  port: number;
  snapshots: SnapshotCache;
  history: RemoteSnapshotHistory;
  timeline: ProxyTimeline;
  statusTracker: StatusTracker;
  /** Proxies that left for good, kept for `xds.departedProxyRetention`. */
  departures: DepartedProxies;
  /** Timelines, statuses and departures stored across restarts. */
  records: RemoteProxyRecords;
  lifecycle: DataplaneLifecycle;
  syncTracker: DataplaneSyncTracker;
  meshContexts: MeshContextCache;
  /** What the policies did to each connected proxy's config (attributions, unapplied fields). */
  policyEffects: PolicyEffects;
  chain: readonly ChainLink[];
  /** Per-Dataplane tokens, checked by the auth callback when `xds.dataplaneTokens` is enabled. */
  dataplaneTokens: DataplaneTokens;
  /** Each mesh's CA (kept in the data directory) and each connected proxy's identity, for mesh mTLS. */
  meshCas: MeshCaStore;
  identities: ProxyIdentities;
  /** Streams end first (UNAVAILABLE), then the callbacks stop their timers and watchdogs. */
  close(): Promise<void>;
}

/** Builds the xDS side in data-flow order (MeshContext → sync → snapshot → server → status) and starts the ADS server. */
export async function startXds(deps: XdsDependencies): Promise<Xds> {
  const { settings, metrics, events } = deps;
  const timeline = new ProxyTimeline(events);
  const meshContexts = new MeshContextCache({
    cachedManager: deps.cachedManager,
    ttl: () => settings.get('store.cache.expirationTime'),
    metrics,
  });
  const snapshots = new SnapshotCache();
  const history = new RemoteSnapshotHistory(deps.storage);
  deps.storage.onHistoryLost((count, kind) => metrics.snapshotHistoryLost.inc({ kind }, count));
  const lifecycle = new DataplaneLifecycle({
    manager: deps.manager,
    cachedManager: deps.cachedManager,
    invalidateMeshContext: (mesh) => meshContexts.invalidate(mesh),
    settings,
    timeline,
  });
  const meshCas = new MeshCaStore(deps.dataDir);
  const identities = new ProxyIdentities({
    caStore: meshCas,
    // gRPC reads its identity from the files its bootstrap names; Envoy gets it over SDS.
    onIssued: ({ kind, dataplane: { meta } }, identity) => {
      if (kind === 'grpc') writeGrpcCertificates(grpcCertificateFiles(deps.dataDir, meta.mesh, meta.name), identity);
    },
  });
  const policyEffects = new PolicyEffects();
  // A private key only for the proxy that proved it is its Dataplane (auth decides; see assertOwner).
  const ownedIdentities: Pick<ProxyIdentities, 'identityFor' | 'forget'> = {
    identityFor: (mesh, proxy) => {
      auth.assertOwner(proxy.id, mesh);
      return identities.identityFor(mesh, proxy);
    },
    forget: (proxyId) => identities.forget(proxyId),
  };
  const syncTracker = new DataplaneSyncTracker({ meshContexts, snapshots, history, settings, timeline, metrics, policyEffects, identities: ownedIdentities });
  // A departed proxy's story (status, timeline, history) is kept for the retention, then dropped
  // whole, so memory stays bounded by the proxies that exist plus a bounded number that left.
  const records = new RemoteProxyRecords(deps.storage);
  const departures = new DepartedProxies({
    retention: () => settings.get('xds.departedProxyRetention'),
    limit: DEPARTED_PROXIES_KEPT,
    onExpired: (proxyId) => {
      statusTracker.forget(proxyId);
      timeline.forget(proxyId);
      history.deleteProxy(proxyId);
      records.forget(proxyId);
    },
    onChange: (proxyId, at) => records.departed(proxyId, at),
  });
  const statusTracker = new StatusTracker({ timeline, metrics, departures });
  // What earlier runs stored comes back before any stream can open; from then on every event and
  // state change is stored (batched, once a second).
  const dataplaneIds = new Set((await deps.manager.list('Dataplane')).map(({ meta }) => `${meta.mesh}.${meta.name}`));
  restorePreviousRun(await records.load(), dataplaneIds, now(), { timeline, statusTracker, departures });
  timeline.listen((proxyId, { seq: _seq, ...event }) => records.event(proxyId, event));
  statusTracker.onStateChange((status) => records.status(status));
  const nackBackoff = new NackBackoff({ settings });
  const dataplaneTokens = new DataplaneTokens(await remoteTokenTable(deps.storage), loadOrCreateTokenSigningKey(deps.dataDir));
  // The server is built from the chain, so auth reaches it late: it only ends streams once they exist.
  const auth = new AuthCallbacks({
    tokens: dataplaneTokens,
    settings,
    endStream: (streamId, finalStatus) => server.closeStream(streamId, finalStatus),
    // Uncached: turning mTLS on must count at once, not one cache expiration later.
    meshOf: (mesh) => storedMesh(deps.manager, mesh),
  });
  const chain = callbacksChain({
    auth,
    lifecycle,
    syncTracker,
    statusTracker,
    nackBackoff,
  });
  const server = new AdsServer({ snapshots, callbacks: chain.map((link) => link.callbacks) });
  // Leftovers are adopted by the core once the API is bound too: a start that fails writes nothing.
  warmUpEncoders(); // before the first proxy can connect: see warm-up.ts
  const { cert, key } = deps.controlPlaneCert;
  const bootstrap = kumaDpBootstrapHandler({ manager: deps.manager, settings, tokens: dataplaneTokens, cert: deps.controlPlaneCert });
  const stopFollowingMeshes = events.subscribe((event) => {
    if (event.topic === 'resource.changed' && event.key.type === 'Mesh') void auth.meshChanged(event.key.name);
  });
  const port = await server.start({ host: deps.host, port: deps.port, tls: { cert, key, http: bootstrap } });

  // A Dataplane deleted through the API: its offline proxy has left for good (the lifecycle's own
  // deregistrations reach the status tracker on the timeline). Its identity and certificate files
  // go with it, and a deleted mesh's CA keys with the mesh: no private key outlives what it is for.
  const stopFollowingDeletes = events.subscribe((event) => {
    if (event.topic !== 'resource.changed' || event.change !== 'deleted') return;
    const { type, mesh, name } = event.key;
    if (type === 'Dataplane') {
      statusTracker.dataplaneDeleted(`${mesh}.${name}`);
      identities.forget(`${mesh}.${name}`);
      removeGrpcCertificates(deps.dataDir, mesh, name);
    } else if (type === 'Mesh') {
      meshCas.deleteMesh(name);
      removeGrpcCertificates(deps.dataDir, name);
    }
  });

  return {
    server,
    port,
    snapshots,
    history,
    timeline,
    statusTracker,
    departures,
    records,
    lifecycle,
    syncTracker,
    meshContexts,
    policyEffects,
    chain,
    dataplaneTokens,
    meshCas,
    identities,
    close: async () => {
      stopFollowingDeletes();
      stopFollowingMeshes();
      departures.close();
      auth.close();
      nackBackoff.close();
      await server.stop();
      await lifecycle.close();
      await syncTracker.close();
      history.flush();
      records.flush();
      meshContexts.close();
    },
  };
}
