import { describe, expect, it } from 'vitest';
import { lineDiff } from './line-diff.js';

describe('lineDiff', () => {
  it('keeps common lines and marks what only one side has, in order', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nx\nc\nd\n')).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'stored', text: 'b' },
      { kind: 'yours', text: 'x' },
      { kind: 'same', text: 'c' },
      { kind: 'yours', text: 'd' },
    ]);
  });

  it('says nothing changed for equal texts', () => {
    expect(lineDiff('a\nb', 'a\nb\n').every((line) => line.kind === 'same')).toBe(true);
  });
});
