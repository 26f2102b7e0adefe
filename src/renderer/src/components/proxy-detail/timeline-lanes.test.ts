import { describe, expect, it } from 'vitest';
import { markOf } from './timeline-lanes.js';

describe('markOf', () => {
  it('labels a generating tick with its work, and the wait before it when there was one', () => {
    expect(markOf({ kind: 'tick', at: 10, result: 'changed', durationMs: 1.5, queuedMs: 300 }).label).toMatch(
      /^generation: changed in 1\.50\s?ms \(after waiting 300\s?ms for the mesh view and a turn\)$/,
    );
    expect(markOf({ kind: 'tick', at: 10, result: 'skip', durationMs: 0.01 }).label).not.toContain('waiting');
  });
});
