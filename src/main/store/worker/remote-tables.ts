import type { SettingsTable } from '../settings-table.js';
import type { TokenRow, TokenTable } from '../token-table.js';
import type { StorageClient } from './storage-client.js';

/**
 * The settings table of the storage worker: read once at start; a save waits for the worker, since
 * the user who saved must hear whether it was stored (see StorageClient.callSync).
 */
export async function remoteSettingsTable(storage: StorageClient): Promise<SettingsTable> {
  const rows = await storage.call('settings.rows');
  return {
    rows: () => rows,
    save: (saved, modificationTime) => storage.callSync('settings.save', saved, modificationTime),
  };
}

/**
 * The token table of the storage worker, with a copy here: ADS checks a proxy's token at every
 * stream, and must not wait for the disk to do so. Only issuing and revoking (by the user) wait.
 */
export async function remoteTokenTable(storage: StorageClient): Promise<TokenTable> {
  const rows = new Map<string, TokenRow>();
  const id = (mesh: string, name: string) => JSON.stringify([mesh, name]);
  for (const row of await storage.call('tokens.all')) rows.set(id(row.mesh, row.name), row);
  return {
    row: (mesh, name) => rows.get(id(mesh, name)),
    all: () => [...rows.values()].sort((a, b) => compare(a.mesh, b.mesh) || compare(a.name, b.name)),
    put: (row) => {
      storage.callSync('tokens.put', row);
      rows.set(id(row.mesh, row.name), row);
    },
  };
}

/** As SQLite's default (binary) collation orders text. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
