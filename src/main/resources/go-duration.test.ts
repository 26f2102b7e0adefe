import { describe, expect, it } from 'vitest';
import { parseGoDuration } from './go-duration.js';

describe('parseGoDuration', () => {
  it("reads what Go's time.ParseDuration reads, in nanoseconds", () => {
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('1s')).toBe(1e9);
    expect(parseGoDuration('1h2m3.5s')).toBe(3723.5e9);
    expect(parseGoDuration('500ms')).toBe(500e6);
    expect(parseGoDuration('-1.5s')).toBe(-1.5e9);
    expect(parseGoDuration('+2us')).toBe(2e3);
    expect(parseGoDuration('3µs')).toBe(3e3);
    expect(parseGoDuration('.5m')).toBe(30e9);
  });

  it('refuses what Go refuses: no unit, an unknown unit, spaces, nothing', () => {
    for (const text of ['', '1', '1d', '1 s', 's', '-', '1s ', '1.s5']) expect(parseGoDuration(text)).toBeUndefined();
  });
});
