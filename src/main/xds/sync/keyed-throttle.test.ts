import { describe, expect, it } from 'vitest';
import { KeyedThrottle } from './keyed-throttle.js';
import { ManualTimers } from './testing/manual-timers.js';

function throttle() {
  const timers = new ManualTimers();
  const clock = { now: 0 };
  const runs: string[] = [];
  const keyed = new KeyedThrottle({ run: (key) => runs.push(key), interval: () => 1_000, timers, now: () => clock.now });
  return { keyed, timers, clock, runs };
}

describe('KeyedThrottle', () => {
  it('runs a first request at once, and merges the requests of the next interval into one run at its end', () => {
    const { keyed, timers, clock, runs } = throttle();

    keyed.request('default');
    expect(runs).toEqual(['default']);

    clock.now = 300;
    keyed.request('default');
    keyed.request('default');
    expect(runs).toEqual(['default']);
    expect(timers.pending).toEqual([700]);

    clock.now = 1_000;
    timers.fireAll();
    expect(runs).toEqual(['default', 'default']);

    clock.now = 2_500;
    keyed.request('default');
    expect(runs).toEqual(['default', 'default', 'default']);
  });

  it('throttles each key on its own, and close cancels what waits', () => {
    const { keyed, timers, runs } = throttle();

    keyed.request('a');
    keyed.request('b');
    keyed.request('a');
    expect(runs).toEqual(['a', 'b']);
    expect(timers.pending).toEqual([1_000]);

    keyed.close();
    expect(timers.pending).toEqual([]);
  });
});
