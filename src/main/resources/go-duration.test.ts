import { describe, expect, it } from 'vitest';
import { goDurationToProtoJson, parseGoDuration, readGoDuration } from './go-duration.js';

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
    for (const text of ['', '1', '1d', '1 s', 's', '-', '1s ', '1.s5', '.s']) expect(parseGoDuration(text)).toBeUndefined();
  });

  // Issue 27: "999999999999h" was read as a float and reached the encoder, which could not write it.
  it('refuses a duration longer than an int64 of nanoseconds, as Go does', () => {
    expect(readGoDuration('2562047h47m16.854775807s')?.nanoseconds).toBe(2n ** 63n - 1n);
    expect(readGoDuration('-2562047h47m16.854775808s')?.nanoseconds).toBe(-(2n ** 63n));
    for (const text of ['2562047h47m16.854775808s', '999999999999h', '2562048h']) expect(readGoDuration(text)).toBeUndefined();
  });

  it('keeps whole nanoseconds, as Go does, and says when the text named a finer fraction', () => {
    expect(readGoDuration('0.0001ms')).toEqual({ nanoseconds: 100n, wholeNanoseconds: true });
    expect(readGoDuration('1.5ns')).toEqual({ nanoseconds: 1n, wholeNanoseconds: false });
    expect(readGoDuration('0.0000001ms')).toEqual({ nanoseconds: 0n, wholeNanoseconds: false });
    expect(readGoDuration('1.000000000s')).toEqual({ nanoseconds: 1_000_000_000n, wholeNanoseconds: true });
  });
});

describe('goDurationToProtoJson', () => {
  it('prints a Go duration as protobuf JSON prints a Duration: seconds with 0, 3, 6 or 9 fractional digits', () => {
    expect(goDurationToProtoJson('10s')).toBe('10s');
    expect(goDurationToProtoJson('1m30s')).toBe('90s');
    expect(goDurationToProtoJson('1.5s')).toBe('1.500s');
    expect(goDurationToProtoJson('1500us')).toBe('0.001500s');
    expect(goDurationToProtoJson('1ns')).toBe('0.000000001s');
    expect(goDurationToProtoJson('-2s')).toBe('-2s');
    expect(goDurationToProtoJson('0')).toBe('0s');
    expect(goDurationToProtoJson('ten seconds')).toBeUndefined();
  });
});
