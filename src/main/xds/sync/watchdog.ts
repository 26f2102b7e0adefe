/** Whatever `setTimer` returns; only ever handed back to `clearTimer`. */
export type TimerHandle = unknown;

/** The clock a watchdog schedules on; tests inject one they advance by hand. */
export interface Timers {
  setTimer(callback: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** Real timers, unref'd: a watchdog is never the reason the process stays alive. */
export const REAL_TIMERS: Timers = {
  setTimer: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface WatchdogOptions {
  /** One unit of work. `signal` aborts when the watchdog is stopped, so a tick can give up after its awaits. */
  onTick: (signal: AbortSignal) => Promise<void>;
  /** Called with whatever a tick threw; must not throw itself. */
  onError: (error: unknown) => void;
  /** Pause between the end of a tick and the start of the next, in ms, read each time one is scheduled. */
  interval: () => number;
  /** REAL_TIMERS unless a test brings its own. */
  timers?: Timers;
}

/**
 * The generic loop behind each proxy's sync (Kuma's pkg/util/watchdog): a first tick at once, then
 * one tick per interval, where the interval counts from the end of the previous tick, so ticks never
 * overlap however long one takes. What a tick does is the caller's (see DataplaneWatchdog).
 */
export class Watchdog {
  readonly #onTick: WatchdogOptions['onTick'];
  readonly #onError: WatchdogOptions['onError'];
  readonly #interval: () => number;
  readonly #timers: Timers;
  readonly #stopping = new AbortController();
  #started = false;
  #timer: TimerHandle | undefined;
  /** The tick running now, if any. */
  #running: Promise<void> | undefined;
  /** `tickNow` came while a tick ran: that tick may have read before the change, so the next one starts at once. */
  #tickAgainAtOnce = false;

  constructor(options: WatchdogOptions) {
    this.#onTick = options.onTick;
    this.#onError = options.onError;
    this.#interval = options.interval;
    this.#timers = options.timers ?? REAL_TIMERS;
  }

  /** Runs the first tick at once; resolves when it has ended (the next one is then scheduled). */
  start(): Promise<void> {
    if (this.#started) throw new Error('a watchdog starts once');
    this.#started = true;
    return this.#tick();
  }

  /**
   * Replaces the pending wait with a full new interval from now, so that a changed interval
   * applies without waiting out the old one. A running tick is left alone: it schedules its successor.
   */
  reschedule(): void {
    if (this.#timer === undefined) return;
    this.#timers.clearTimer(this.#timer);
    this.#schedule();
  }

  /**
   * Runs the next tick now instead of at the end of its wait, and counts the following wait from
   * its end, so a kick replaces a scheduled tick rather than adding one. When a tick is running,
   * the next one starts as soon as it ends.
   */
  tickNow(): void {
    if (this.stopped) return;
    if (this.#running) {
      this.#tickAgainAtOnce = true;
    } else if (this.#timer !== undefined) {
      this.#timers.clearTimer(this.#timer);
      void this.#tick();
    }
  }

  /** No tick starts after this; resolves once a tick running now has ended. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    if (this.#timer !== undefined) this.#timers.clearTimer(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  get stopped(): boolean {
    return this.#stopping.signal.aborted;
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    if (this.stopped) return;
    this.#running = this.#runTick();
    await this.#running;
    this.#running = undefined;
    if (this.stopped) return;
    if (this.#tickAgainAtOnce) {
      this.#tickAgainAtOnce = false;
      void this.#tick();
    } else {
      this.#schedule();
    }
  }

  async #runTick(): Promise<void> {
    try {
      await this.#onTick(this.#stopping.signal);
    } catch (error) {
      this.#onError(error);
    }
  }

  #schedule(): void {
    this.#timer = this.#timers.setTimer(() => void this.#tick(), this.#interval());
  }
}
