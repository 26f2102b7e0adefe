import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Real SQLite files, real sockets and real xDS clients: give them room on a shared 2-core box.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The UI tests (test/ui) load the built renderer; this builds it once, when sources changed.
    globalSetup: ['test/ui/support/build-renderer.ts'],
  },
});
