import { describe, expect, it } from 'vitest';
import { ManualTimers } from './testing/manual-timers.js';
import { Watchdog, type WatchdogOptions } from './watchdog.js';

/** A promise with its resolve function, to hold a tick open for as long as a test needs. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Lets every promise continuation queued so far run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function watchdog(timers: ManualTimers, options: Partial<WatchdogOptions> & Pick<WatchdogOptions, 'onTick'>): Watchdog {
  return new Watchdog({ interval: () => 1_000, onError: (error) => expect.fail(String(error)), timers, ...options });
}

describe('Watchdog', () => {
  it('runs the first tick at once, before any timer, and start resolves when it ended', async () => {
    const timers = new ManualTimers();
    const log: string[] = [];
    const dog = watchdog(timers, {
      onTick: async () => {
        log.push('tick');
      },
    });

    const started = dog.start();
    expect(log).toEqual(['tick']);
    await started;

    expect(timers.pending).toEqual([1_000]);
    await dog.stop();
  });

  it('schedules the next tick only when the previous one ended, so ticks never overlap', async () => {
    const timers = new ManualTimers();
    let running = 0;
    let most = 0;
    let ticks = 0;
    const gates = [deferred(), deferred()];
    const dog = watchdog(timers, {
      onTick: async () => {
        running++;
        most = Math.max(most, running);
        await gates[ticks++]?.promise;
        running--;
      },
    });

    const started = dog.start();
    await settle();
    expect(timers.pending).toEqual([]);
    gates[0]!.resolve();
    await started;
    expect(timers.pending).toEqual([1_000]);

    timers.fireAll();
    await settle();
    expect(timers.pending).toEqual([]);
    gates[1]!.resolve();
    await settle();

    expect(ticks).toBe(2);
    expect(most).toBe(1);
    expect(timers.pending).toEqual([1_000]);
    await dog.stop();
  });

  it('reads the interval each time it schedules, so a change applies from the next tick', async () => {
    const timers = new ManualTimers();
    let interval = 1_000;
    const dog = watchdog(timers, { interval: () => interval, onTick: async () => {} });

    await dog.start();
    interval = 250;
    timers.fireAll();
    await settle();

    expect(timers.pending).toEqual([250]);
    await dog.stop();
  });

  it('replaces a pending wait with the new interval on reschedule', async () => {
    const timers = new ManualTimers();
    let interval = 60_000;
    const dog = watchdog(timers, { interval: () => interval, onTick: async () => {} });
    await dog.start();

    interval = 100;
    dog.reschedule();

    expect(timers.pending).toEqual([100]);
    await dog.stop();
  });

  it('hands a failed tick to onError and keeps ticking', async () => {
    const timers = new ManualTimers();
    const errors: unknown[] = [];
    let ticks = 0;
    const dog = watchdog(timers, {
      onTick: async () => {
        ticks++;
        throw new Error(`tick ${ticks} failed`);
      },
      onError: (error) => errors.push(error),
    });

    await dog.start();
    timers.fireAll();
    await settle();

    expect(errors.map((error) => (error as Error).message)).toEqual(['tick 1 failed', 'tick 2 failed']);
    expect(timers.pending).toEqual([1_000]);
    await dog.stop();
  });

  it('waits in stop for the tick running now, aborts its signal, and schedules nothing after it', async () => {
    const timers = new ManualTimers();
    const gate = deferred();
    const log: string[] = [];
    const dog = watchdog(timers, {
      onTick: async (signal) => {
        log.push('tick started');
        await gate.promise;
        log.push(`tick ended, aborted: ${signal.aborted}`);
      },
    });
    void dog.start();

    const stopped = dog.stop().then(() => log.push('stopped'));
    await settle();
    expect(log).toEqual(['tick started']);
    gate.resolve();
    await stopped;

    expect(log).toEqual(['tick started', 'tick ended, aborted: true', 'stopped']);
    expect(timers.pending).toEqual([]);
  });

  it('leaves no timer behind when stopped between ticks', async () => {
    const timers = new ManualTimers();
    let ticks = 0;
    const dog = watchdog(timers, { onTick: async () => void ticks++ });
    await dog.start();

    await dog.stop();
    dog.reschedule();

    expect(timers.pending).toEqual([]);
    expect(ticks).toBe(1);
  });

  it('never ticks when stopped before it started', async () => {
    const timers = new ManualTimers();
    let ticks = 0;
    const dog = watchdog(timers, { onTick: async () => void ticks++ });

    await dog.stop();
    await dog.start();

    expect(ticks).toBe(0);
    expect(timers.pending).toEqual([]);
  });

  it('refuses to start twice', async () => {
    const dog = watchdog(new ManualTimers(), { onTick: async () => {} });
    await dog.start();

    expect(() => dog.start()).toThrow('a watchdog starts once');
    await dog.stop();
  });

  it('ticks on real timers by default', async () => {
    const ticked = deferred();
    let ticks = 0;
    const dog = new Watchdog({
      interval: () => 1,
      onError: (error) => expect.fail(String(error)),
      onTick: async () => {
        if (++ticks === 3) ticked.resolve();
      },
    });

    void dog.start();
    await ticked.promise;
    await dog.stop();

    expect(ticks).toBeGreaterThanOrEqual(3);
  });

  it('tickNow runs the waiting tick at once and counts the next wait from its end, replacing the scheduled tick', async () => {
    const timers = new ManualTimers();
    let ticks = 0;
    const dog = watchdog(timers, {
      onTick: async () => {
        ticks++;
      },
    });
    await dog.start();

    dog.tickNow();
    await settle();

    expect(ticks).toBe(2);
    expect(timers.pending).toEqual([1_000]);
    await dog.stop();
  });

  it('tickNow during a tick runs one more tick right after it, however many kicks came', async () => {
    const timers = new ManualTimers();
    const gate = deferred();
    let ticks = 0;
    const dog = watchdog(timers, {
      onTick: async () => {
        if (ticks++ === 0) await gate.promise;
      },
    });
    const started = dog.start();

    dog.tickNow();
    dog.tickNow();
    gate.resolve();
    await started;
    await settle();

    expect(ticks).toBe(2);
    expect(timers.pending).toEqual([1_000]);
    await dog.stop();
    dog.tickNow();
    expect(ticks).toBe(2);
  });
});

