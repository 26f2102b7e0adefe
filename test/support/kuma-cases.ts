// Where Kuma v2.14.3's golden data is: `../shared/kuma-cases` beside the checkout, or the folder
// MESHDESK_KUMA_CASES names. The data is not part of the repository, so the tests that compare with
// it live in files named `*.kuma.test.ts`, which vitest.config.ts leaves out when the data is absent
// (and CI, with MESHDESK_REQUIRE_KUMA_CASES=1, refuses to run without).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECKOUT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const KUMA_CASES_DIR = process.env.MESHDESK_KUMA_CASES ?? resolve(CHECKOUT, '../shared/kuma-cases');

export function kumaCasesPresent(): boolean {
  return existsSync(KUMA_CASES_DIR);
}

/** The test files that compare meshdesk with Kuma's golden data; other test files never read it. */
export const KUMA_CASES_TEST_SUFFIX = '.kuma.test.ts';
export const KUMA_CASES_TEST_FILES = `**/*${KUMA_CASES_TEST_SUFFIX}`;
