import { describe, it } from 'vitest';
import { loadGeneratorCase } from './generator-cases.js';
import { expectToMatchGoldenYaml, goldenCases } from './golden-files.js';
import { outboundProxyGenerator } from './outbound-proxy-generator.js';

describe('outbound proxy generator', () => {
  for (const { name, inputPath, goldenPath } of goldenCases('outbound-proxy')) {
    const { description, context, proxy } = loadGeneratorCase(inputPath);
    it(`${description} (${name})`, () => {
      expectToMatchGoldenYaml(outboundProxyGenerator.generate(context, proxy), goldenPath);
    });
  }
});
