import { describe, expect, it } from 'vitest';
import { goJsonSyntaxError } from './go-json-syntax.js';

describe("Go's encoding/json syntax errors", () => {
  it.each([
    ['{,\n}', "invalid character ',' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['{"a":01}', "invalid character '1' after object key:value pair"],
    ['[1 2]', "invalid character '2' after array element"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    // At the end Go steps once more with a space, which a literal cut short does not take.
    ['{"a":nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['{"a":1} x', "invalid character 'x' after top-level value"],
    ['{"a":', 'unexpected end of JSON input'],
    ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
    ['{"a":"\\u12g4"}', "invalid character 'g' in \\u hexadecimal character escape"],
    ['{"a":"\t"}', "invalid character '\\t' in string literal"],
    ['{"a":-}', "invalid character '}' in numeric literal"],
    ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
    // Go scans bytes: the first byte of "é" (0xC3) is quoted as the rune U+00C3.
    ['{é}', "invalid character 'Ã' looking for beginning of object key string"],
    ['{\u0001}', "invalid character '\\x01' looking for beginning of object key string"],
    ['[\n1,\r\n2]x', "invalid character 'x' after top-level value"],
  ])('%j: %s', (text, message) => {
    expect(goJsonSyntaxError(text)).toBe(message);
  });

  it('finds nothing wrong with JSON, a number at the very end and duplicate keys (Go keeps the last) included', () => {
    for (const text of ['{"a":[1,-2.5e+3,true,false,null,{"b":"\\u00e9\\n"}]}', ' 12 ', '{"a":1,"a":2}', '[]', '{}']) {
      expect(goJsonSyntaxError(text)).toBeUndefined();
    }
  });
});
