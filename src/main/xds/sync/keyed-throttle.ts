import { REAL_TIMERS, type TimerHandle, type Timers } from './watchdog.js';

export interface KeyedThrottleOptions {
  run: (key: string) => void;
  /** The shortest time between two runs for one key, in ms, read at each request. */
  interval: () => number;
  /** REAL_TIMERS unless a test brings its own. */
  timers?: Timers;
  /** Monotonic ms; tests bring their own. */
  now?: () => number;
}

/**
 * Runs `run(key)` at most once per interval per key: at once when the key's last run is older
 * than that, otherwise once at the end of the interval, however many requests came meanwhile.
 * No request is ever dropped, only merged into the next run.
 */
export class KeyedThrottle {
  readonly #options: KeyedThrottleOptions;
  readonly #timers: Timers;
  readonly #now: () => number;
  readonly #lastRun = new Map<string, number>();
  readonly #waiting = new Map<string, TimerHandle>();

  constructor(options: KeyedThrottleOptions) {
    this.#options = options;
    this.#timers = options.timers ?? REAL_TIMERS;
    this.#now = options.now ?? (() => performance.now());
  }

  request(key: string): void {
    if (this.#waiting.has(key)) return;
    const last = this.#lastRun.get(key);
    const wait = last === undefined ? 0 : last + this.#options.interval() - this.#now();
    if (wait <= 0) {
      this.#run(key);
      return;
    }
    this.#waiting.set(
      key,
      this.#timers.setTimer(() => {
        this.#waiting.delete(key);
        this.#run(key);
      }, wait),
    );
  }

  /** Cancels the runs still waiting. */
  close(): void {
    for (const timer of this.#waiting.values()) this.#timers.clearTimer(timer);
    this.#waiting.clear();
    this.#lastRun.clear();
  }

  #run(key: string): void {
    this.#lastRun.set(key, this.#now());
    this.#options.run(key);
  }
}
