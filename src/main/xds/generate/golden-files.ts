// Golden-file testing, as Kuma's MatchGoldenYAML: each case is `testdata/<suite>/NN.<case>.input.yaml`
// next to its expected output `NN.<case>.golden.yaml`. Run with UPDATE_GOLDEN_FILES=true to
// rewrite the golden files from the current output, then review the diff.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { stringify } from 'yaml';

const TESTDATA = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testdata');
const INPUT_SUFFIX = '.input.yaml';

export interface GoldenCase {
  /** `NN.<case>`, for test names. */
  name: string;
  inputPath: string;
  goldenPath: string;
}

/** Every case of one suite, in file-name order. */
export function goldenCases(suite: string): GoldenCase[] {
  const directory = path.join(TESTDATA, suite);
  return fs
    .readdirSync(directory)
    .filter((file) => file.endsWith(INPUT_SUFFIX))
    .sort()
    .map((file) => {
      const name = file.slice(0, -INPUT_SUFFIX.length);
      return { name, inputPath: path.join(directory, file), goldenPath: path.join(directory, `${name}.golden.yaml`) };
    });
}

/** Compares `actual`, as YAML, with the golden file; rewrites the file instead when asked to. */
export function expectToMatchGoldenYaml(actual: unknown, goldenPath: string): void {
  const yaml = stringify(actual, { lineWidth: 0 });
  if (process.env.UPDATE_GOLDEN_FILES === 'true') {
    fs.writeFileSync(goldenPath, yaml);
    return;
  }
  if (!fs.existsSync(goldenPath)) {
    throw new Error(`golden file ${goldenPath} is missing: run the test with UPDATE_GOLDEN_FILES=true to create it`);
  }
  expect(yaml, `output differs from ${path.relative(process.cwd(), goldenPath)}`).toBe(fs.readFileSync(goldenPath, 'utf8'));
}
