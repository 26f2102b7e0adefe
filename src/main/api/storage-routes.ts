import type { StorageStatus } from '../../shared/storage-types.js';
import type { ResourceManager } from '../manager/interfaces.js';
import type { RemoteSnapshotHistory } from '../store/worker/remote-snapshot-history.js';
import type { Route } from './router.js';

export interface StorageDependencies {
  manager: Pick<ResourceManager, 'brokenRows'>;
  historyWrites: Pick<RemoteSnapshotHistory, 'writeStatus'>;
}

/**
 * `GET /storage`: how the database is doing, for the UI's storage indicator — what the config history
 * could not record, and the stored rows left out of every read because they are broken.
 */
export function storageRoutes(deps: StorageDependencies): Route[] {
  return [
    {
      method: 'GET',
      path: '/storage',
      handler: async () => {
        const status: StorageStatus = { history: await deps.historyWrites.writeStatus(), brokenRows: deps.manager.brokenRows() };
        return { json: status };
      },
    },
  ];
}
