import { describe, expect, it } from 'vitest';
import { parseResourceDocuments, parseResourceText } from './parse.js';
import { ValidationError } from './validation-error.js';

function violationsOf(parse: () => unknown) {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).violations;
  }
  throw new Error('expected a ValidationError');
}

describe('parseResourceText', () => {
  it('reads YAML', () => {
    expect(parseResourceText('type: Mesh\nname: default\n')).toEqual({ type: 'Mesh', name: 'default' });
  });

  it('reads JSON, tab-indented too', () => {
    expect(parseResourceText('{\n\t"type": "Mesh",\n\t"labels": {"a": "1"}\n}')).toEqual({
      type: 'Mesh',
      labels: { a: '1' },
    });
  });

  it('keeps YAML 1.2 core scalars: no YAML 1.1 booleans or dates', () => {
    expect(parseResourceText('a: yes\nb: 2001-12-14\nc: 0x10\n')).toEqual({ a: 'yes', b: '2001-12-14', c: 16 });
  });

  it('accepts a trailing document separator', () => {
    expect(parseResourceText('type: Mesh\n---\n')).toEqual({ type: 'Mesh' });
  });

  it('names the line and column of a syntax error', () => {
    expect(violationsOf(() => parseResourceText('type: Mesh\nname: [a, b\nlabels: {}\n'))).toEqual([
      { field: '', message: expect.stringMatching(/^line 3, column 1: /) },
    ]);
  });

  it('rejects duplicate keys in YAML, naming where the duplicate is', () => {
    expect(violationsOf(() => parseResourceText('type: Mesh\nname: a\nname: b\n'))).toEqual([
      { field: '', message: 'line 3, column 1: Map keys must be unique' },
    ]);
  });

  it('rejects duplicate keys in JSON, which JSON.parse would silently accept', () => {
    expect(violationsOf(() => parseResourceText('{"name": "a", "name": "b"}'))).toEqual([
      { field: '', message: 'line 1, column 15: Map keys must be unique' },
    ]);
  });

  it('rejects several documents, pointing at the second one', () => {
    expect(violationsOf(() => parseResourceText('type: Mesh\nname: a\n---\ntype: Mesh\nname: b\n'))).toEqual([
      { field: '', message: 'line 3, column 1: expected one resource, found 2 documents separated by "---"' },
    ]);
  });

  it('rejects empty text', () => {
    expect(violationsOf(() => parseResourceText('  # only a comment\n'))).toEqual([
      { field: '', message: 'the text is empty: expected one resource' },
    ]);
  });

  it('rejects tags that would not give a JSON value (!!binary, custom tags)', () => {
    expect(violationsOf(() => parseResourceText('a: !!binary aGVsbG8=\nb: !custom x\n'))).toEqual([
      { field: '', message: 'line 1, column 4: Unresolved tag: tag:yaml.org,2002:binary' },
      { field: '', message: 'line 2, column 4: Unresolved tag: !custom' },
    ]);
  });

  it('rejects a mapping key that is a collection', () => {
    expect(violationsOf(() => parseResourceText('? [a, b]\n: c\n'))).toEqual([
      { field: '', message: 'line 1, column 3: a mapping key must be a string, not a collection' },
    ]);
  });

  it('rejects an alias to an unknown anchor', () => {
    expect(violationsOf(() => parseResourceText('a: &x 1\nb: *y\n'))).toEqual([
      { field: '', message: 'line 2, column 4: unknown alias *y' },
    ]);
  });

  it('resolves aliases to anchored mappings, sequences and scalars', () => {
    expect(parseResourceText('a: &m\n  b: 1\nc: &s [1]\nd: &x v\ne: [*m, *s, *x]\n')).toEqual({
      a: { b: 1 },
      c: [1],
      d: 'v',
      e: [{ b: 1 }, [1], 'v'],
    });
  });

  it('rejects an alias bomb instead of expanding it', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 8; level++) {
      const previous = String.fromCharCode(96 + level);
      const current = String.fromCharCode(97 + level);
      levels.push(`${current}: &${current} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    expect(violationsOf(() => parseResourceText(levels.join('\n')))).toEqual([
      { field: '', message: expect.stringMatching(/^line 1, column 1: .*alias/i) },
    ]);
  });

  it('keeps a "__proto__" key as a plain key', () => {
    const value = parseResourceText('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });
});

describe('parseResourceDocuments', () => {
  it('reads every document in order and skips empty ones', () => {
    const text = '---\ntype: Mesh\nname: a\n---\n# nothing here\n---\n{"type": "Mesh", "name": "b"}\n---\n';
    expect(parseResourceDocuments(text)).toEqual([
      { type: 'Mesh', name: 'a' },
      { type: 'Mesh', name: 'b' },
    ]);
  });

  it('reads an empty file as no documents', () => {
    expect(parseResourceDocuments('')).toEqual([]);
  });

  it('reports problems of every document, with their lines in the whole file', () => {
    expect(violationsOf(() => parseResourceDocuments('a: 1\na: 2\n---\nb: [1\n---\nc: 1\n'))).toEqual([
      { field: '', message: 'line 2, column 1: Map keys must be unique' },
      { field: '', message: expect.stringMatching(/^line 5, column 1: /) },
    ]);
  });
});
