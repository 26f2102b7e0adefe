import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// A tripwire, not a stand-in: loading the core below must never reach for electron.
vi.mock('electron', () => {
  throw new Error('the core imported electron');
});

const MAIN = join(import.meta.dirname, '..');
const IMPORTS_ELECTRON = /(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]electron(?:\/[^'"]*)?['"]/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|cts|js|mjs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the boundary between the core and Electron', () => {
  it('keeps electron out of the core: only src/main/index.ts and src/main/electron/ may import it', () => {
    const offenders = sourceFiles(MAIN)
      .map((file) => relative(MAIN, file))
      .filter((file) => file !== 'index.ts' && !file.startsWith(`electron${'/'}`))
      .filter((file) => IMPORTS_ELECTRON.test(readFileSync(join(MAIN, file), 'utf8')));
    expect(offenders).toEqual([]);
    expect(IMPORTS_ELECTRON.test(readFileSync(join(MAIN, 'index.ts'), 'utf8')), 'the pattern finds the shell\'s import').toBe(true);
  });

  it('loads the whole core (everything headless mode runs) without electron', async () => {
    await expect(import('../core.js')).resolves.toHaveProperty('startCore');
  });

  it('lets src/main/electron/ import only electron types, so it loads (and is tested) in plain Node', () => {
    const valueImports = sourceFiles(join(MAIN, 'electron'))
      .filter((file) => !file.endsWith('.test.ts'))
      .filter((file) => /^import\s+(?!type\b)[^;]*from\s+['"]electron['"]/m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(MAIN, file));
    expect(valueImports).toEqual([]);
  });
});
