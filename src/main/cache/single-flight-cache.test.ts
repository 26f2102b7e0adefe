import { afterEach, describe, expect, it, vi } from 'vitest';
import { SingleFlightCache } from './single-flight-cache.js';

/** A clock the test moves by hand: no sleeping, no timing assumptions. */
class ManualClock {
  time = 0;
  readonly now = (): number => this.time;
}

/** A load the test finishes when it chooses, counting how often it ran. */
class ControlledLoad<V> {
  calls = 0;
  readonly #pending: { resolve: (value: V) => void; reject: (error: unknown) => void }[] = [];

  readonly load = (): Promise<V> => {
    this.calls++;
    return new Promise<V>((resolve, reject) => this.#pending.push({ resolve, reject }));
  };

  resolve(call: number, value: V): void {
    this.#pending[call - 1]!.resolve(value);
  }

  reject(call: number, error: unknown): void {
    this.#pending[call - 1]!.reject(error);
  }
}

function setup(ttlMs = 1_000) {
  const clock = new ManualClock();
  let ttl = ttlMs;
  const cache = new SingleFlightCache<string>({ ttl: () => ttl, now: clock.now });
  return { clock, cache, setTtl: (ms: number) => (ttl = ms) };
}

const loadValue = (value: string) => async () => value;

afterEach(() => {
  vi.useRealTimers();
});

describe('SingleFlightCache', () => {
  it('runs one load for concurrent lookups of a cold key; the others wait for it', async () => {
    const { cache } = setup();
    const load = new ControlledLoad<string>();

    const lookups = Array.from({ length: 10 }, () => cache.get('k', load.load));
    load.resolve(1, 'v');
    const answers = await Promise.all(lookups);

    expect(load.calls).toBe(1);
    expect(answers.map((answer) => answer.result)).toEqual(['miss', ...Array<string>(9).fill('hit-wait')]);
    expect(answers.every((answer) => answer.value === 'v')).toBe(true);
  });

  it('answers from the entry while it is fresh and loads again once the TTL has passed', async () => {
    const { clock, cache } = setup(1_000);
    expect(await cache.get('k', loadValue('first'))).toEqual({ value: 'first', result: 'miss' });

    clock.time = 999;
    expect(await cache.get('k', loadValue('second'))).toEqual({ value: 'first', result: 'hit' });

    clock.time = 1_000;
    expect(await cache.get('k', loadValue('second'))).toEqual({ value: 'second', result: 'miss' });
  });

  it('reads the TTL on every lookup: shortening it expires a live entry', async () => {
    const { clock, cache, setTtl } = setup(10_000);
    await cache.get('k', loadValue('first'));
    clock.time = 2_000;
    expect((await cache.get('k', loadValue('second'))).result).toBe('hit');

    setTtl(1_000);
    expect(await cache.get('k', loadValue('second'))).toEqual({ value: 'second', result: 'miss' });
  });

  it('reads the TTL on every lookup: lengthening it keeps an entry alive longer', async () => {
    const { clock, cache, setTtl } = setup(1_000);
    await cache.get('k', loadValue('first'));

    setTtl(10_000);
    clock.time = 5_000;
    expect(await cache.get('k', loadValue('second'))).toEqual({ value: 'first', result: 'hit' });
    expect(cache.entries()).toEqual([{ key: 'k', value: 'first', ageMs: 5_000, timeLeftMs: 5_000 }]);
  });

  it('never caches a failed load: its waiters get the same error and the next lookup loads again', async () => {
    const { cache } = setup();
    const load = new ControlledLoad<string>();
    const failure = new Error('store unavailable');

    const first = cache.get('k', load.load);
    const waiter = cache.get('k', load.load);
    load.reject(1, failure);

    await expect(first).rejects.toBe(failure);
    await expect(waiter).rejects.toBe(failure);
    expect(cache.entries()).toEqual([]);
    expect(await cache.get('k', loadValue('recovered'))).toEqual({ value: 'recovered', result: 'miss' });
  });

  it('turns a load that throws at once into a rejected lookup, not cached', async () => {
    const { cache } = setup();
    const load = () => {
      throw new Error('bad key');
    };

    await expect(cache.get('k', load)).rejects.toThrow('bad key');
    expect(await cache.get('k', loadValue('v'))).toEqual({ value: 'v', result: 'miss' });
  });

  it('classifies a lookup before its load finishes, failed loads included', async () => {
    const { cache } = setup();
    const load = new ControlledLoad<string>();

    const first = cache.lookup('k', load.load);
    const second = cache.lookup('k', load.load);
    expect([first.result, second.result]).toEqual(['miss', 'hit-wait']);

    load.reject(1, new Error('gone'));
    await expect(first.value).rejects.toThrow('gone');
    await expect(second.value).rejects.toThrow('gone');
  });

  it('with a TTL of 0 caches nothing but still shares a load in progress', async () => {
    const { cache } = setup(0);
    const load = new ControlledLoad<string>();

    const lookups = [cache.get('k', load.load), cache.get('k', load.load)];
    load.resolve(1, 'v');
    expect((await Promise.all(lookups)).map((answer) => answer.result)).toEqual(['miss', 'hit-wait']);

    expect(cache.size).toBe(0);
    expect(await cache.get('k', loadValue('again'))).toEqual({ value: 'again', result: 'miss' });
  });

  it('forgets a load in progress on invalidate, so that its possibly stale result never fills the cache', async () => {
    const { cache } = setup();
    const load = new ControlledLoad<string>();

    const beforeWrite = cache.get('k', load.load);
    cache.invalidate('k');
    const afterWrite = cache.get('k', load.load);
    expect(load.calls).toBe(2);

    load.resolve(2, 'new');
    load.resolve(1, 'old');
    expect(await beforeWrite).toEqual({ value: 'old', result: 'miss' });
    expect(await afterWrite).toEqual({ value: 'new', result: 'miss' });
    expect(await cache.get('k', loadValue('unused'))).toEqual({ value: 'new', result: 'hit' });
  });

  it('drops the entries a predicate selects, or all of them', async () => {
    const { cache } = setup();
    for (const key of ['GET:a', 'GET:b', 'LIST:a']) await cache.get(key, loadValue(key));

    cache.invalidateWhere((key) => key.endsWith(':a'));
    expect(cache.entries().map((entry) => entry.key)).toEqual(['GET:b']);

    cache.clear();
    expect(cache.entries()).toEqual([]);
  });

  it('reports age and time left of fresh entries and drops expired ones from memory', async () => {
    const { clock, cache } = setup(1_000);
    await cache.get('old', loadValue('o'));
    clock.time = 600;
    await cache.get('new', loadValue('n'));
    clock.time = 1_100;

    expect(cache.size).toBe(2);
    expect(cache.entries()).toEqual([{ key: 'new', value: 'n', ageMs: 500, timeLeftMs: 500 }]);
    expect(cache.size).toBe(1);
  });

  it('sweeps expired entries on a timer even when nobody reads them again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { clock, cache } = setup(1_000);
    await cache.get('a', loadValue('a'));
    await cache.get('b', loadValue('b'));

    clock.time = 1_000;
    vi.advanceTimersByTime(1_000);

    expect(cache.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops its sweep timer and drops everything on close', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { cache } = setup();
    await cache.get('a', loadValue('a'));
    expect(vi.getTimerCount()).toBe(1);

    cache.close();

    expect(vi.getTimerCount()).toBe(0);
    expect(cache.size).toBe(0);
  });
});
