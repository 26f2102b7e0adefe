import type { StorageStatus } from '../../../../shared/storage-types.js';
import { client } from '../api/index.js';
import { Polled } from './polled.svelte.js';

/**
 * Storage problems have no event of their own (a failed history write happens on the core's time),
 * so they are polled; every 5 s shows a full disk or a lock soon enough without adding load.
 */
const STORAGE_POLL_MS = 5_000;

/**
 * `GET /storage`, shared by the status bar's indicator, the History tab and the Resources view, and
 * fetched at once after a resource change (which may replace or delete a broken row).
 */
export const storage = new Polled<StorageStatus>({
  load: () => client.storage(),
  everyMs: STORAGE_POLL_MS,
  refreshOn: (event) => event.topic === 'resource.changed',
});

/** History cannot be written now, or could not since start: what to tell the user, or undefined when all is well. */
export function historyProblem(status: StorageStatus | undefined): string | undefined {
  if (!status) return undefined;
  const { failing, lostSnapshots, pendingSnapshots, lastFailure } = status.history;
  if (!failing && lostSnapshots === 0) return undefined;
  const lost = lostSnapshots > 0 ? `${count(lostSnapshots, 'snapshot')} not recorded since start` : undefined;
  if (!failing) return `${lost}; recording works again.`;
  const waiting = pendingSnapshots > 0 ? `${count(pendingSnapshots, 'snapshot')} waiting to be written` : undefined;
  const counts = [lost, waiting].filter(Boolean).join(', ');
  return `Config history cannot be written: ${lastFailure?.message ?? 'unknown error'}. ${counts ? `${counts}; ` : ''}proxies still get their config.`;
}

function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? '' : 's'}`;
}
