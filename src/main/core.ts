import { join } from 'node:path';
import { startApiServer, type RunningApiServer } from './api/api-server.js';
import { BodyReaderPool } from './api/body-reading/body-reader-pool.js';
import { createApiRouter } from './api/routes.js';
import { EventStream } from './api/event-stream.js';
import { CachedManager } from './cache/cached-manager.js';
import { Settings, type SettingOverrides } from './config/settings.js';
import type { CoreOptions } from './core-options.js';
import { startServiceModel } from './meshservice/components.js';
import type { ServiceModelController } from './meshservice/controller.js';
import { ZONE_NAME } from './resources/computed-labels.js';
import { DemoRunner } from './demo/demo-runner.js';
import { EventBus } from './events/event-bus.js';
import { DataDirInUseError, InstanceFile, runningOwner, type InstanceInfo } from './instance/instance-file.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { DatabaseInUseError, StorageFaultError } from './store/errors.js';
import { RemoteResourceManager } from './store/worker/remote-resource-manager.js';
import { remoteSettingsTable } from './store/worker/remote-tables.js';
import { StorageClient } from './store/worker/storage-client.js';
import { dialableAddress } from './net/dialable-address.js';
import { loadOrCreateControlPlaneCert, type ControlPlaneCert } from './tls/control-plane-cert.js';
import { startXds, type Xds } from './xds/components.js';

/** The running control plane: what the Electron shell, headless mode and tests hold on to. */
export interface Core {
  readonly dataDir: string;
  /** This process as the data directory's instance file names it, and the file a previous owner left, if any. */
  readonly instance: { readonly info: InstanceInfo; readonly takenOver: InstanceInfo | undefined };
  readonly events: EventBus;
  readonly metrics: Metrics;
  readonly settings: Settings;
  readonly manager: RemoteResourceManager;
  /** The storage worker, the one thread that reads and writes the database. */
  readonly storage: StorageClient;
  readonly cachedManager: CachedManager;
  readonly xds: Xds;
  readonly api: RunningApiServer;
  /** The ADS port's certificate, the file kuma-dp's `--ca-cert-file` takes. */
  readonly controlPlaneCert: ControlPlaneCert;
  /** The demo mesh (`npm run demo`, the UI's "Start a demo mesh", `/demo`); stopped first on close. */
  readonly demo: DemoRunner;
  /** The service model's zone components (MeshService generator, VIPs, hostnames, statuses); absent when turned off. */
  readonly serviceModel: ServiceModelController | undefined;
  /** Stops listeners first, then closes the storage worker and its database, so no write is cut off half-way, then frees the data directory. */
  close(): Promise<void>;
}

/** A data directory meshdesk cannot use, with the path and the reason. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

export const DATABASE_FILE = 'meshdesk.db';

/**
 * The composition root: store → cached manager → xDS → API, in that order, and nothing else wires
 * parts together. Start-up writes nothing until it holds the data directory and both listeners
 * are bound: a start that is refused (directory in use, port taken) leaves the database as it was.
 * Holding the data directory is holding its database: the storage worker's connection keeps the
 * file's lock for its life, and the kernel frees it when this process ends, however it ends.
 */
export async function startCore(options: CoreOptions): Promise<Core> {
  const storage = await openDataDirectory(options.dataDir, options.nativeBinding);
  let instance: InstanceFile;
  try {
    instance = InstanceFile.write(options.dataDir);
  } catch (error) {
    await storage.close();
    throw dataDirError(options.dataDir, error);
  }
  try {
    const events = new EventBus();
    const metrics = createMetrics();
    const settings = new Settings({ table: await remoteSettingsTable(storage), events, overrides: portOverrides(options) });
    const manager = new RemoteResourceManager(storage, events);
    await manager.checkStoredResources(); // read-only: logs each broken row by its key; start-up goes on
    const cachedManager = new CachedManager({
      delegate: manager,
      ttl: () => settings.get('store.cache.expirationTime'),
      metrics,
    });
    // Created once in the data directory, then reused: kuma-dp keeps trusting the same file.
    const controlPlaneCert = loadOrCreateControlPlaneCert(options.dataDir);
    const xds = await startXds({
      controlPlaneCert,
      dataDir: options.dataDir,
      host: options.host,
      port: settings.get('xds.port'),
      storage,
      manager,
      cachedManager,
      settings,
      metrics,
      events,
    });
    const eventStream = new EventStream(events, metrics);
    const demo = new DemoRunner({ manager, ads: dialableAddress({ host: options.host, port: xds.port }), statusTracker: xds.statusTracker });
    const bodyReader = new BodyReaderPool();
    let api: RunningApiServer;
    try {
      api = await startApiServer({
        host: options.host,
        port: settings.get('apiServer.port'),
        router: createApiRouter({
          manager,
          cachedManager,
          settings,
          metrics,
          eventStream,
          timeline: xds.timeline,
          statusTracker: xds.statusTracker,
          snapshots: xds.snapshots,
          meshContexts: xds.meshContexts,
          policyEffects: xds.policyEffects,
          connectedProxies: xds.syncTracker,
          snapshotHistory: xds.history,
          historyWrites: xds.history,
          adsServer: xds.server,
          xdsChain: xds.chain,
          dataplaneTokens: xds.dataplaneTokens,
          tokenMode: () => settings.get('xds.dataplaneTokens'),
          adsAddress: { host: options.host, port: xds.port },
          dataDir: options.dataDir,
          meshCas: xds.meshCas,
          identities: xds.identities,
          controlPlaneCert,
          demo,
          bodyReader,
        }),
        onClose: () => eventStream.closeAll(),
      });
    } catch (error) {
      await bodyReader.close();
      await xds.close();
      throw error;
    }
    instance.recordAddresses({ apiAddress: hostPort(options.host, api.port), adsAddress: hostPort(options.host, xds.port) });
    // Only now, with both ports bound, does start-up write. The database's lock is ours, so any
    // previous owner is proven gone (the kernel freed its lock when it ended): its proxy-registered
    // Dataplanes are leftovers.
    await manager.ensureDefaultMesh();
    await xds.lifecycle.adoptLeftovers();
    const serviceModel = options.meshServiceComponents === false ? undefined : await startServiceModel({ manager, events, xds, settings, zone: ZONE_NAME });
    return {
      dataDir: options.dataDir,
      instance: { info: instance.info, takenOver: instance.previous },
      events,
      metrics,
      settings,
      manager,
      storage,
      cachedManager,
      xds,
      api,
      controlPlaneCert,
      demo,
      serviceModel,
      close: async () => {
        try {
          await demo.stop(); // while the store is open: it deletes what it wrote
          await serviceModel?.close();
          await api.close();
          await bodyReader.close();
          await xds.close();
          cachedManager.close();
          instance.remove(); // while the database, and so the directory, is still ours
        } finally {
          await storage.close();
        }
      },
    };
  } catch (error) {
    instance.remove();
    await storage.close();
    throw error;
  }
}

/** `host:port`, with an IPv6 host in brackets. */
function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Opens the data directory's database, and with it takes the directory, or says who holds it. */
async function openDataDirectory(dataDir: string, nativeBinding: string | undefined): Promise<StorageClient> {
  try {
    return await StorageClient.start(join(dataDir, DATABASE_FILE), { nativeBinding });
  } catch (error) {
    if (error instanceof DatabaseInUseError) throw new DataDirInUseError(dataDir, error.file, runningOwner(dataDir), { cause: error });
    // A damaged database says which file and what to do; another folder is not the answer.
    if (error instanceof StorageFaultError) throw error;
    throw dataDirError(dataDir, error);
  }
}

function dataDirError(dataDir: string, error: unknown): DataDirError {
  const reason = error instanceof Error ? error.message : String(error);
  return new DataDirError(`cannot use data directory ${dataDir}: ${reason}. Choose a writable folder with --data-dir or MESHDESK_DATA_DIR`, { cause: error });
}

function portOverrides(options: CoreOptions): SettingOverrides {
  const origin = (flag: 'apiPort' | 'adsPort', sourceName: string) => options.portOrigins?.[flag] ?? { source: 'command line' as const, sourceName };
  return {
    ...(options.apiPort !== undefined && { 'apiServer.port': { value: options.apiPort, ...origin('apiPort', '--api-port') } }),
    ...(options.adsPort !== undefined && { 'xds.port': { value: options.adsPort, ...origin('adsPort', '--ads-port') } }),
  };
}
