import { describe, expect, it } from 'vitest';
import { TimeSlice } from './time-slice.js';

describe('TimeSlice', () => {
  it('lets the first caller of a turn through and resumes the others one slice per event-loop turn', async () => {
    const slice = new TimeSlice(0); // every slice is full as soon as it started
    const log: string[] = [];
    // Queued from the check phase of the next turn: it runs in the turn after, which is when the
    // caller left without room in the next slice may resume.
    setImmediate(() => setImmediate(() => log.push('next turn')));
    const callers = ['a', 'b', 'c'].map((name) => slice.yieldWhenBusy().then(() => log.push(name)));
    await Promise.all(callers);

    expect(log).toEqual(['a', 'b', 'next turn', 'c']);
  });

  it('lets every caller through while the slice has room', async () => {
    const slice = new TimeSlice(60_000);
    const log: string[] = [];
    const callers = [1, 2, 3].map((n) => slice.yieldWhenBusy().then(() => log.push(`caller ${n}`)));
    setImmediate(() => log.push('immediate'));
    await Promise.all(callers);

    expect(log).toEqual(['caller 1', 'caller 2', 'caller 3']);
  });
});
