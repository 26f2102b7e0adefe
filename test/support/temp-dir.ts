import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onScopeFinished } from './test-scope.js';

/** A fresh folder under the OS temp dir, removed when the current test finishes (or the file, from a beforeAll). */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'meshdesk-'));
  onScopeFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
