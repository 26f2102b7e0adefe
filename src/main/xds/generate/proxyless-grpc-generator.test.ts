import { describe, it } from 'vitest';
import { loadGeneratorCase } from './generator-cases.js';
import { expectToMatchGoldenYaml, goldenCases } from './golden-files.js';
import { proxylessGrpcGenerator } from './proxyless-grpc-generator.js';

describe('proxyless gRPC generator', () => {
  for (const { name, inputPath, goldenPath } of goldenCases('proxyless-grpc')) {
    const { description, context, proxy } = loadGeneratorCase(inputPath);
    it(`${description} (${name})`, () => {
      expectToMatchGoldenYaml(proxylessGrpcGenerator.generate(context, proxy), goldenPath);
    });
  }
});
