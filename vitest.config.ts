import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { kumaCasesFilesLeftOut } from './test/support/kuma-cases-notice.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Without Kuma's golden data (a clone without ../shared), its comparisons are left out, said once.
    exclude: [...configDefaults.exclude, ...kumaCasesFilesLeftOut()],
    // Real SQLite files, real sockets and real xDS clients, two files at a time on a shared 2-core
    // box: give them room. Bounds for a hung test, nothing is timed.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two test files at a time, even on 2 cores (vitest's default is one per core but one):
    // much of a file's time is spent waiting on sockets, child processes and Chromium, which the
    // other file fills. Tests wait on conditions, never on time, so they hold under that load.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The UI tests (test/ui) load the built renderer; this builds it once, when sources changed.
    globalSetup: ['test/ui/support/build-renderer.ts'],
  },
});
