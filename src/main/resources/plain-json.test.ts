import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING } from './nesting.js';
import { parseResourceText } from './parse.js';
import { parsePlainJson } from './plain-json.js';
import { ValidationError } from './validation-error.js';

function messagesOf(text: string): string[] {
  try {
    parseResourceText(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).violations.map((violation) => violation.message);
  }
  throw new Error('expected a ValidationError');
}

describe('parsePlainJson', () => {
  it('reads any JSON object or array exactly as JSON.parse does', () => {
    const collection = fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 6 })), fc.array(fc.jsonValue({ maxDepth: 6 })));
    fc.assert(
      fc.property(collection, fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(parsePlainJson(text)).toEqual({ value: JSON.parse(text) });
      }),
    );
  });

  it('leaves scalars, YAML and broken JSON to the YAML parser', () => {
    for (const text of ['"a string"', '42', 'type: Mesh', '{"type": "Mesh",}', '{"a": "unterminated}', '{"tab": "\t"}']) {
      expect(parsePlainJson(text)).toBeUndefined();
    }
  });

  it('leaves a key given twice in one object, however it is escaped, to the YAML parser, which names it', () => {
    expect(parsePlainJson('{"a": {"b": 1}, "c": {"b": 2}}')).toEqual({ value: { a: { b: 1 }, c: { b: 2 } } });
    expect(parsePlainJson('[{"b": 1}, {"b": 2}]')).toBeDefined();
    expect(parsePlainJson('{"type": "Mesh", "\\u0074ype": "Dataplane"}')).toBeUndefined();
    expect(messagesOf('{\n  "name": "a",\n  "name": "b"\n}')).toEqual([expect.stringMatching(/^line 3, column 3: .*[Uu]nique/)]);
  });

  it(`leaves nesting deeper than ${MAX_NESTING} to the YAML path, which refuses it before parsing`, () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(parsePlainJson(deep)).toBeUndefined();
    expect(messagesOf(deep)).toEqual([expect.stringMatching(/nested deeper than 64 levels/)]);
  });
});
