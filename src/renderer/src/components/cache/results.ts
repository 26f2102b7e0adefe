import type { CacheResult } from '../../../../shared/stats-types.js';

/** Results in the order they are stacked and listed, each with its theme colour and what it means. */
export const CACHE_RESULTS: readonly { result: CacheResult; label: string; color: string; title: string }[] = [
  { result: 'hit', label: 'hit', color: '--ok', title: 'Served from the cache' },
  { result: 'hit-wait', label: 'hit-wait', color: '--info', title: 'Waited for a load already in flight (single flight): no store read of its own' },
  { result: 'miss', label: 'miss', color: '--warn', title: 'Read the store (expired or never loaded)' },
];
