import { describe, it } from 'vitest';
import { loadGeneratorCase } from './generator-cases.js';
import { expectToMatchGoldenYaml, goldenCases } from './golden-files.js';
import { inboundProxyGenerator } from './inbound-proxy-generator.js';

describe('inbound proxy generator', () => {
  for (const { name, inputPath, goldenPath } of goldenCases('inbound-proxy')) {
    const { description, context, proxy } = loadGeneratorCase(inputPath);
    it(`${description} (${name})`, () => {
      expectToMatchGoldenYaml(inboundProxyGenerator.generate(context, proxy), goldenPath);
    });
  }
});
