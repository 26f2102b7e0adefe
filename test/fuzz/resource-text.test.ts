import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseResourceDocuments, parseResourceText } from '../../src/main/resources/parse.js';
import { validateResource, validateResourceInput } from '../../src/main/resources/validate.js';
import { ValidationError } from '../../src/main/resources/validation-error.js';
import { hostileText, resourceLike, validDataplane } from './arbitraries.js';
import { numRuns } from './run-counts.js';

/**
 * What src/main/resources' own properties leave out: resources arriving as *text* (the API's and
 * the node metadata's form) — any text only ever gives a resource or a ValidationError, and a
 * valid resource written as YAML reads back unchanged.
 */

/** Parses and validates; anything but a ValidationError (with violations) fails the property. */
function readOrRefuse(text: string): void {
  try {
    const input = validateResource(parseResourceText(text));
    validateResourceInput(input);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    expect(error.violations.length).toBeGreaterThan(0);
  }
}

const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => stringify(value)),
  resourceLike.map((value) => stringify(value)),
  resourceLike.map((value) => JSON.stringify(value)),
  // A valid resource cut anywhere: the truncated uploads and half-typed editors the UI sends.
  fc.tuple(validDataplane().map((value) => stringify(value)), fc.nat()).map(([yaml, cut]) => yaml.slice(0, cut % (yaml.length + 1))),
  hostileText,
);

describe('resource text', () => {
  it('any text gives a resource or a ValidationError, never another error', () => {
    fc.assert(
      fc.property(anyText, (text) => readOrRefuse(text)),
      { numRuns: numRuns(1000, 50_000) },
    );
  });

  it('multi-document text gives documents or a ValidationError, never another error', () => {
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 4 }), (texts) => {
        try {
          parseResourceDocuments(texts.join('\n---\n'));
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
        }
      }),
      { numRuns: numRuns(300, 10_000) },
    );
  });

  it('a valid Dataplane written as YAML reads back to the same resource', () => {
    fc.assert(
      fc.property(validDataplane(), (dataplane) => {
        const { type, mesh, name, labels, ...spec } = dataplane;
        expect(validateResource(parseResourceText(stringify(dataplane)))).toEqual({ type, mesh, name, labels, spec });
      }),
      { numRuns: numRuns(300, 10_000) },
    );
  });
});
