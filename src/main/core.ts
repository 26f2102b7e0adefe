import { join } from 'node:path';
import { startApiServer, type RunningApiServer } from './api/api-server.js';
import { createApiRouter } from './api/routes.js';
import { EventStream } from './api/event-stream.js';
import { CachedManager } from './cache/cached-manager.js';
import { Settings } from './config/settings.js';
import type { CoreOptions } from './core-options.js';
import { EventBus } from './events/event-bus.js';
import { ResourceManager } from './manager/resource-manager.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { openDatabase, type Db } from './store/database.js';
import { ResourceStore } from './store/resource-store.js';
import { startXds, type Xds } from './xds/components.js';

/** The running control plane: what the Electron shell, headless mode and tests hold on to. */
export interface Core {
  readonly dataDir: string;
  readonly events: EventBus;
  readonly metrics: Metrics;
  readonly settings: Settings;
  readonly manager: ResourceManager;
  readonly cachedManager: CachedManager;
  readonly xds: Xds;
  readonly api: RunningApiServer;
  /** Stops listeners first, then closes the database, so no write is cut off half-way. */
  close(): Promise<void>;
}

/** A data directory meshdesk cannot use, with the path and the reason. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

export const DATABASE_FILE = 'meshdesk.db';

/** The composition root: store → cached manager → xDS → API, in that order, and nothing else wires parts together. */
export async function startCore(options: CoreOptions): Promise<Core> {
  const db = openDataDirectory(options.dataDir, options.nativeBinding);
  try {
    const events = new EventBus();
    const metrics = createMetrics();
    const settings = new Settings({ db, events, overrides: portOverrides(options) });
    const manager = new ResourceManager({ store: new ResourceStore(db), events });
    await manager.ensureDefaultMesh();
    const cachedManager = new CachedManager({
      delegate: manager,
      ttl: () => settings.get('store.cache.expirationTime'),
      metrics,
    });
    const xds = await startXds({
      host: options.host,
      port: settings.get('xds.port'),
      db,
      manager,
      cachedManager,
      settings,
      metrics,
      events,
    });
    const eventStream = new EventStream(events, metrics);
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
          snapshotHistory: xds.history,
          adsServer: xds.server,
          xdsChain: xds.chain,
          dataplaneTokens: xds.dataplaneTokens,
          adsAddress: { host: options.host, port: xds.port },
        }),
        onClose: () => eventStream.closeAll(),
      });
    } catch (error) {
      await xds.close();
      throw error;
    }
    return {
      dataDir: options.dataDir,
      events,
      metrics,
      settings,
      manager,
      cachedManager,
      xds,
      api,
      close: async () => {
        await api.close();
        await xds.close();
        cachedManager.close();
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

function openDataDirectory(dataDir: string, nativeBinding: string | undefined): Db {
  try {
    return openDatabase(join(dataDir, DATABASE_FILE), { nativeBinding });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DataDirError(
      `cannot use data directory ${dataDir}: ${reason}. Choose a writable folder with --data-dir or MESHDESK_DATA_DIR`,
      { cause: error },
    );
  }
}

function portOverrides(options: CoreOptions) {
  return {
    ...(options.apiPort !== undefined && { 'apiServer.port': options.apiPort }),
    ...(options.adsPort !== undefined && { 'xds.port': options.adsPort }),
  };
}
