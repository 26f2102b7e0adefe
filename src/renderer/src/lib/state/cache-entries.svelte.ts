import { createSubscriber } from 'svelte/reactivity';
import type { CacheEntry } from '../../../../shared/api-types.js';
import { client } from '../api/index.js';
import { fineClock } from './clock.svelte.js';
import { errorMessage } from '../format/error-message.js';

/** An entry as it stands now, by the answer it came in. */
export interface LiveCacheEntry extends CacheEntry {
  /** The entry's `timeLeftMs` less the time since its answer was asked for: never more than the core's. */
  timeLeftNowMs: number;
  ageNowMs: number;
}

/** How often the entries are read while shown: a quarter of the default 1 s expiration. */
const POLL_MS = 250;
/** The soonest a read follows the one before, when entries expire in a burst. */
const MIN_GAP_MS = 40;

/**
 * The cached manager's entries as `GET /cache` states them. The core lists fresh entries only,
 * so this never shows an expired one: an entry is shown until its own time runs out, counted from
 * when its answer was asked for (the answer was produced after that, so the time left shown is
 * never more than the core's), and the entries are read again when the first of them runs out —
 * the core has then either dropped it or loaded it again — and every POLL_MS in any case, to see
 * new ones. The old view counted down a one-second-old copy on its own and called everything
 * "expired" that the core had long reloaded.
 */
export class CacheEntriesState {
  #answer = $state.raw<{ entries: CacheEntry[]; askedAt: number }>();
  #error = $state<string>();
  /**
   * When the last entry to run out did: an entry leaves the table at its expiry, not at the next
   * tick of the 100 ms clock that counts times down (it would be shown past it, while the core has
   * dropped it or loaded it again).
   */
  #expiredAt = $state(0);

  readonly #subscribe = createSubscriber(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let expiryTimer: ReturnType<typeof setTimeout> | undefined;
    const expiriesAfter = (now: number) =>
      (this.#answer?.entries ?? []).map((entry) => this.#answer!.askedAt + entry.timeLeftMs).filter((at) => at > now);
    const dropExpired = (): void => {
      const now = Date.now();
      this.#expiredAt = now;
      const next = Math.min(...expiriesAfter(now));
      // To the next whole millisecond (Date.now()'s): a delay that ends short of a fractional expiry
      // would find it still ahead and wait again, in a chain the browser slows to 4 ms a step.
      if (Number.isFinite(next)) expiryTimer = setTimeout(dropExpired, Math.max(1, Math.ceil(next) - now));
    };
    const read = async (): Promise<void> => {
      const askedAt = Date.now();
      try {
        const { entries } = await client.cacheEntries();
        if (stopped) return;
        this.#answer = { entries, askedAt };
        this.#error = undefined;
        clearTimeout(expiryTimer);
        dropExpired();
      } catch (error) {
        if (stopped) return;
        this.#error = errorMessage(error);
      }
      // Read again once the first entry has run out (the core has dropped it or loaded it again), and every POLL_MS for new ones.
      const firstExpiry = Math.min(...expiriesAfter(0));
      const wait = Math.min(POLL_MS, Math.max(MIN_GAP_MS, firstExpiry - Date.now()));
      timer = setTimeout(() => void read(), wait);
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(expiryTimer);
    };
  });

  /** Live entries only, by key; undefined before the first answer. */
  get entries(): LiveCacheEntry[] | undefined {
    this.#subscribe();
    const answer = this.#answer;
    if (!answer) return undefined;
    const elapsed = Math.max(0, Math.max(fineClock.now, this.#expiredAt) - answer.askedAt);
    return answer.entries
      .map((entry) => ({ ...entry, timeLeftNowMs: entry.timeLeftMs - elapsed, ageNowMs: entry.ageMs + elapsed }))
      .filter((entry) => entry.timeLeftNowMs > 0)
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  /** Epoch ms when the answer shown was asked for. */
  get asOf(): number | undefined {
    this.#subscribe();
    return this.#answer?.askedAt;
  }

  get error(): string | undefined {
    this.#subscribe();
    return this.#error;
  }
}
