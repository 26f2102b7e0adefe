import { describe, expect, it } from 'vitest';
import { re2Problem } from './re2-syntax.js';

describe('re2Problem', () => {
  it("names what RE2 (grpc-js-xds's engine) refuses and where", () => {
    const prefix = 'must be a regular expression in RE2 syntax, which Envoy and gRPC use: ';
    expect(re2Problem('/api/(?<=v1)x')).toBe(`${prefix}invalid perl operator: (?< at offset 5`);
    expect(re2Problem('/(a)\\1')).toBe(`${prefix}invalid escape sequence: \\1 at offset 4`);
    expect(re2Problem('/[a')).toBe(`${prefix}missing ]: [a at offset 1`);
    expect(re2Problem('/a{1001}')).toBe(`${prefix}invalid repetition size: {1001} at offset 2`);
  });

  it('accepts what RE2 reads, JavaScript-only or not', () => {
    for (const pattern of ['/api/.*', '(?i)/API', '/\\p{L}+', '/(?P<v>v[0-9]+)/.*', '']) expect(re2Problem(pattern), pattern).toBeUndefined();
  });
});
