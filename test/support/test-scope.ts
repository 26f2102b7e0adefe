import { afterAll, onTestFinished } from 'vitest';

// What a `beforeAll` starts (a core, servers and clients shared by a file's tests) closes once the
// file's tests have run; vitest's onTestFinished works only inside a test. Registered when a test
// file imports this module, i.e. while vitest collects that file.
const afterFile: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of afterFile.splice(0).reverse()) await cleanup();
});

/** Runs `cleanup` when the running test ends, or, called from a `beforeAll`, after the file's tests. */
export function onScopeFinished(cleanup: () => unknown): void {
  try {
    onTestFinished(async () => void (await cleanup()));
  } catch {
    // Outside a test, which is the only reason onTestFinished throws ("can only be called inside a test").
    afterFile.push(cleanup);
  }
}
