import { describe, expect, it } from 'vitest';
import { protoDuration } from './proto-duration.js';

describe('protoDuration', () => {
  it("writes a policy's Go duration as a google.protobuf.Duration in proto3 JSON", () => {
    expect(protoDuration('55s')).toBe('55s');
    expect(protoDuration('1m30s')).toBe('90s');
    expect(protoDuration('500ms')).toBe('0.5s');
    expect(protoDuration('1h0m0.000001s')).toBe('3600.000001s');
    expect(protoDuration('-2s')).toBe('-2s');
  });
});
