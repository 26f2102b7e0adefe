// First: V8 counts only code compiled after counting starts.
import { countOperations } from '../../../test/support/operation-count.js';
import { describe, expect, it } from 'vitest';
import { MAX_ALIASES, MAX_REPORTED_PROBLEMS, MAX_YAML_BYTES, parseResourceText } from './parse.js';
import { ValidationError } from './validation-error.js';

/** Parses or refuses; either way the work done is what is counted. */
function parseOrRefuse(text: string): unknown {
  try {
    return parseResourceText(text);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error;
  }
}

/** Operations to parse a text of 4n parts over those for n parts: about 4 when linear, 16 when quadratic. */
function growth(make: (n: number) => string, n = 1000): number {
  parseOrRefuse(make(n)); // warm up: compile once, outside the count
  return countOperations(() => parseOrRefuse(make(4 * n))) / countOperations(() => parseOrRefuse(make(n)));
}

const keys = (n: number) => Array.from({ length: n }, (_, index) => `k${index}`);

// Hostile texts seen to block the event loop for seconds (issue 12): work grows linearly with their size.
describe('parsing cost', () => {
  it('grows linearly with the keys of a YAML mapping', () => {
    expect(growth((n) => keys(n).map((key) => `${key}: v`).join('\n'))).toBeLessThan(6);
  });

  it('grows linearly with the keys of a JSON object given to the YAML parser (one key repeated, or a duplicate at the end)', () => {
    expect(growth((n) => `{${Array(n).fill('"a": 1').join(', ')}}`)).toBeLessThan(6);
    expect(growth((n) => `{${keys(n).map((key) => `"${key}": 1`).join(', ')}, "k0": 2}`)).toBeLessThan(6);
  });

  it('grows linearly with the keys of a flow mapping', () => {
    expect(growth((n) => `labels: {${keys(n).map((key) => `${key}: v`).join(', ')}}`)).toBeLessThan(6);
  });

  it('grows linearly with anchors and aliases', () => {
    expect(growth((n) => keys(n).map((key) => `${key}: &${key} x\n${key}-again: *${key}`).join('\n'))).toBeLessThan(6);
    expect(growth((n) => [...keys(n).map((key) => `${key}: &${key} x`), ...keys(MAX_ALIASES).map((key) => `${key}-again: *${key}`)].join('\n'))).toBeLessThan(6);
  });

  it(`refuses more than ${MAX_ALIASES} aliases in a document, naming where`, () => {
    const text = keys(MAX_ALIASES + 1).map((key) => `${key}: &${key} x\n${key}-again: *${key}`).join('\n');
    expect((parseOrRefuse(text) as ValidationError).violations).toEqual([
      { field: '', message: `line ${2 * MAX_ALIASES + 2}, column 13: more than ${MAX_ALIASES} aliases in one document` },
    ]);
    expect(parseOrRefuse(keys(MAX_ALIASES).map((key) => `${key}: &${key} x\n${key}-again: *${key}`).join('\n'))).not.toBeInstanceOf(ValidationError);
  });

  it(`refuses YAML over ${MAX_YAML_BYTES} bytes without parsing it, and reads plain JSON beyond that`, () => {
    const yaml = keys(30_000).map((key) => `${key}: v`).join('\n');
    let refusal: unknown;
    expect(countOperations(() => (refusal = parseOrRefuse(yaml)))).toBeLessThan(1000);
    expect((refusal as ValidationError).violations).toEqual([
      { field: '', message: `the text is ${yaml.length} bytes: YAML (or JSON with a key given twice) may be at most ${MAX_YAML_BYTES} bytes, far more than any resource needs` },
    ]);
    const json = JSON.stringify(Object.fromEntries(keys(30_000).map((key) => [key, 'v'])));
    expect(json.length).toBeGreaterThan(MAX_YAML_BYTES);
    expect(Object.keys(parseResourceText(json) as object)).toHaveLength(30_000);
  });

  it(`names the first ${MAX_REPORTED_PROBLEMS} duplicate keys and counts the others`, () => {
    const violations = (parseOrRefuse(`{${Array(1000).fill('"a": 1').join(', ')}}`) as ValidationError).violations;
    expect(violations).toHaveLength(MAX_REPORTED_PROBLEMS + 1);
    expect(violations[0]).toEqual({ field: '', message: 'line 1, column 10: Map keys must be unique' });
    expect(violations.at(-1)).toEqual({ field: '', message: `and ${999 - MAX_REPORTED_PROBLEMS} more problems like these` });
  });
});
