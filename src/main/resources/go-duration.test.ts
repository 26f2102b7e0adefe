import { describe, expect, it } from 'vitest';
import { goDurationToProtoJson, parseGoDuration } from './go-duration.js';

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
