import { describe, expect, it } from 'vitest';
import { warmUpEncoders } from './warm-up.js';

describe('warmUpEncoders', () => {
  it('generates and encodes a configuration with every protocol for both proxy kinds', () => {
    // Throws, naming the resource, if any generated resource fails the encode guard.
    expect(() => warmUpEncoders()).not.toThrow();
  });
});
