import { describe, expect, it } from 'vitest';
import { jsonPatchDiff } from './json-patch-diff.js';

describe('the JSON Patch between two configurations (Kuma _config include=diff)', () => {
  it('is empty for equal values', () => {
    expect(jsonPatchDiff({ a: [1, { b: 'c' }] }, { a: [1, { b: 'c' }] })).toEqual([]);
  });

  it('tests, removes and adds a changed value; tests and removes a removed key; adds a new one; escapes pointer characters', () => {
    expect(jsonPatchDiff({ 'x/y': { t: '1s', gone: true }, 'a~b': 1 }, { 'x/y': { t: '2s', added: [1] }, 'a~b': 1 })).toEqual([
      { op: 'test', path: '/x~1y/t', value: '1s' },
      { op: 'remove', path: '/x~1y/t', value: '1s' },
      { op: 'add', path: '/x~1y/t', value: '2s' },
      { op: 'test', path: '/x~1y/gone', value: true },
      { op: 'remove', path: '/x~1y/gone', value: true },
      { op: 'add', path: '/x~1y/added', value: [1] },
    ]);
  });

  it('goes into arrays of equal length item by item, and replaces an array of another length whole', () => {
    expect(jsonPatchDiff({ l: [{ n: 1 }, { n: 2 }] }, { l: [{ n: 1 }, { n: 3 }] })).toEqual([
      { op: 'test', path: '/l/1/n', value: 2 },
      { op: 'remove', path: '/l/1/n', value: 2 },
      { op: 'add', path: '/l/1/n', value: 3 },
    ]);
    expect(jsonPatchDiff({ l: [1] }, { l: [1, 2] })).toEqual([
      { op: 'test', path: '/l', value: [1] },
      { op: 'remove', path: '/l', value: [1] },
      { op: 'add', path: '/l', value: [1, 2] },
    ]);
  });
});
