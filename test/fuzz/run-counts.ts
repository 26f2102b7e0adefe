/**
 * Property-based tests run a few cases in the normal suite, so that it stays fast on a shared
 * machine, and many more with MESHDESK_LONG=1 (a nightly or pre-release run).
 */
export const LONG_RUN = process.env.MESHDESK_LONG === '1';

export function numRuns(normal: number, long: number): number {
  return LONG_RUN ? long : normal;
}

/** Long runs take their time; a normal run keeps vitest's default budget. */
export const LONG_TIMEOUT_MS = LONG_RUN ? 30 * 60_000 : 120_000;
