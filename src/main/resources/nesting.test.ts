import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { findTooDeepNesting } from './nesting.js';
import { parseResourceText } from './parse.js';
import { ValidationError } from './validation-error.js';

/** Levels of collections in a JSON value: `[]` is 1, a scalar 0. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('findTooDeepNesting', () => {
  const dataplaneYaml = `type: Dataplane
mesh: default
name: backend-1
labels: {team: "pay[ments"}
networking:
  address: 127.0.0.1
  inbound:
    - port: 18080
      tags:
        kuma.io/service: backend
`;

  it('finds nothing in an ordinary resource, brackets inside quotes included', () => {
    expect(findTooDeepNesting(dataplaneYaml, 8)).toBeUndefined();
    expect(findTooDeepNesting(JSON.stringify(parseResourceText(dataplaneYaml)), 8)).toBeUndefined();
  });

  it('finds the line and column where flow, block and compact nesting go too deep', () => {
    expect(findTooDeepNesting('['.repeat(10), 5)).toEqual({ line: 1, column: 5 });
    expect(findTooDeepNesting(`a: 1\nb: ${'- '.repeat(10)}x`, 5)).toMatchObject({ line: 2 });
    expect(findTooDeepNesting(Array.from({ length: 10 }, (_, level) => `${'  '.repeat(level)}k${level}:`).join('\n'), 5)).toMatchObject({ line: 6 });
  });

  it('never counts fewer levels than the text holds, as JSON or as block YAML', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.boolean(), (value, asYaml) => {
        const depth = depthOf(value);
        fc.pre(depth > 1);
        const text = asYaml ? stringify(value) : JSON.stringify(value);
        expect(findTooDeepNesting(text, depth - 1)).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });

  it('lets the parser refuse hostile nesting with a ValidationError, again and again (it once aborted the process)', () => {
    for (let round = 0; round < 5; round++) {
      for (const text of [`${'- '.repeat(1000)}x`, '['.repeat(1000), '{"a":'.repeat(1000)]) {
        expect(() => parseResourceText(text)).toThrow(ValidationError);
        expect(() => parseResourceText(text)).toThrow(/nested deeper than 64 levels/);
      }
    }
  });
});
