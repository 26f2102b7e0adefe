// Read by vitest.config.ts: which test files to leave out when Kuma's golden data is absent, with
// the one line that says so. CI sets MESHDESK_REQUIRE_KUMA_CASES=1, so that a missing copy fails
// the run instead of passing it with fewer tests.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KUMA_CASES_DIR, KUMA_CASES_TEST_FILES, KUMA_CASES_TEST_SUFFIX, kumaCasesPresent } from './kuma-cases.js';

export function kumaCasesFilesLeftOut(): string[] {
  if (kumaCasesPresent()) return [];
  if (process.env.MESHDESK_REQUIRE_KUMA_CASES === '1') {
    throw new Error(
      `Kuma's golden data is required (MESHDESK_REQUIRE_KUMA_CASES=1) and is not at ${KUMA_CASES_DIR}: copy it there or set MESHDESK_KUMA_CASES`,
    );
  }
  const testFiles = ['src', 'test'].flatMap((root) =>
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => join(root, file)),
  );
  const leftOut = testFiles.filter((file) => file.endsWith(KUMA_CASES_TEST_SUFFIX));
  // Files that mostly test meshdesk's own behaviour skip only their suites that read the cases.
  const withSkippedSuites = testFiles.filter((file) => !file.endsWith(KUMA_CASES_TEST_SUFFIX) && readFileSync(file, 'utf8').includes('kumaCasesPresent()'));
  console.log(
    `Kuma's golden data is not at ${KUMA_CASES_DIR} (MESHDESK_KUMA_CASES names another copy): skipping the ` +
      `${leftOut.length} test files that compare with it (*${KUMA_CASES_TEST_SUFFIX}) and the Kuma-case tests of ${withSkippedSuites.length} others`,
  );
  return [KUMA_CASES_TEST_FILES];
}
