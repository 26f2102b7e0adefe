import { describe, it } from 'vitest';
import { loadGeneratorCase } from './generator-cases.js';
import { expectToMatchGoldenYaml, goldenCases } from './golden-files.js';
import { secretsGenerator } from './secrets-generator.js';

describe('secrets generator', () => {
  for (const { name, inputPath, goldenPath } of goldenCases('secrets')) {
    const { description, context, proxy } = loadGeneratorCase(inputPath);
    it(`${description} (${name})`, () => {
      expectToMatchGoldenYaml(secretsGenerator.generate(context, proxy), goldenPath);
    });
  }
});
