import { describe, expect, test } from 'vitest';
import { sleep } from './sleep.js';

describe('sleep', () => {
  test('never ends before the time asked for has passed on the timeline clock', async () => {
    for (const ms of [1, 5, 20]) {
      const startedAt = performance.now();
      await sleep(ms, new AbortController().signal);
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(ms);
    }
  });

  test('ends at once, without rejecting, when its signal aborts', async () => {
    const shutdown = new AbortController();
    const sleeping = sleep(3_600_000, shutdown.signal);

    shutdown.abort();

    await expect(sleeping).resolves.toBeUndefined();
  });
});
