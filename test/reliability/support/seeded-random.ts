/**
 * A seeded pseudo-random source (mulberry32), so that a failing reliability run can be replayed:
 * every test prints its seed, and `MESHDESK_SEED=<seed>` runs the same kill points and write mix again.
 */
export interface Random {
  readonly seed: number;
  /** In [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
}

export function seededRandom(seed = Number(process.env.MESHDESK_SEED ?? Math.floor(Math.random() * 2 ** 31))): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
  };
}

/** Long runs (≥ 200 kills, ≥ 5000 churn cycles) only when asked for: `MESHDESK_LONG=1 npx vitest run test/reliability`. */
export const LONG_RUN = process.env.MESHDESK_LONG === '1';
