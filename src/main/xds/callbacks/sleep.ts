/** Waits `ms`, or less if `signal` aborts (shutdown); never rejects. Tests inject their own. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * A real sleep that never ends early by the timeline's clock: Node's timers count from the event
 * loop's cached time and can fire up to a millisecond before `ms` have passed, which would let the
 * post-create wait end while a cache entry it waits out is still fresh.
 */
export const sleep: Sleep = async (ms, signal) => {
  const until = performance.now() + ms;
  for (let left = ms; left > 0 && !signal.aborted; left = until - performance.now()) {
    await timer(Math.ceil(left), signal);
  }
};

function timer(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timeout);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timeout = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
