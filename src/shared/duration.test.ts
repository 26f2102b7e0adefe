import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DurationSyntaxError, formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['1s', 1_000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    ['0s', 0],
    ['0', 0],
    ['2h', 7_200_000],
    ['1h0m5s', 3_605_000],
    ['.5s', 500],
    ['1.1s', 1_100],
    ['0.001s', 1],
  ])('reads Go-style %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '1', '5', 's', '1 s', ' 1s', '-1s', '+1s', '1sec', '1d', '10us', '1.s', '1m30', '1.0005s', '1e3ms', 'NaN'])(
    'refuses "%s" with a message naming the input',
    (text) => {
      expect(() => parseDuration(text)).toThrow(DurationSyntaxError);
      expect(() => parseDuration(text)).toThrow(`invalid duration "${text}"`);
    },
  );

  it('explains which units are allowed', () => {
    expect(() => parseDuration('5')).toThrow('one of the units h, m, s, ms');
  });

  // Issue 12: "0.0001ms" was read as 0 and turned caching off.
  it.each(['0.0001ms', '0.0000001s', '1.0000001s', '0.4ms', '1m0.0001s'])('refuses "%s", finer than a millisecond, instead of rounding it', (text) => {
    expect(() => parseDuration(text)).toThrow('is not a whole number of milliseconds: meshdesk keeps durations to the millisecond');
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [1, '1ms'],
    [500, '500ms'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [90_000, '1m30s'],
    [60_500, '1m0.5s'],
    [3_600_000, '1h'],
    [7_200_000, '2h'],
    [3_605_000, '1h5s'],
  ])('writes %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses %d ms', (ms) => {
    expect(() => formatDuration(ms)).toThrow(RangeError);
  });

  it('is the exact inverse of parseDuration for any whole number of milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000 * 3_600_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });
});
