// Vitest globalSetup: the UI tests load a built renderer from a real core. It is built into a
// folder of the tests' own (other work rebuilding out/renderer must not pull files from under a
// running test), once per run and only when a renderer source is newer than that build.
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build } from 'vite';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of the renderer build the UI tests serve. */
    rendererDir: string;
  }
}

const RENDERER_SOURCE = 'src/renderer';
const SOURCES = [RENDERER_SOURCE, 'src/shared', 'package-lock.json'];
// In this checkout's out/, not in node_modules: several worktrees may share one node_modules (a
// symlink), and one checkout's build must never be taken as fresh for another's sources.
export const UI_TEST_RENDERER_DIR = resolve('out/ui-test-renderer');

export default async function buildRenderer(project: TestProject): Promise<void> {
  project.provide('rendererDir', UI_TEST_RENDERER_DIR);
  if (isFresh()) return;
  // Build beside, then swap, so a concurrent run never sees a half-written folder.
  const fresh = `${UI_TEST_RENDERER_DIR}-${process.pid}`;
  await build({ configFile: join(RENDERER_SOURCE, 'vite.config.ts'), logLevel: 'warn', build: { outDir: fresh, emptyOutDir: true } });
  const old = `${UI_TEST_RENDERER_DIR}-old-${process.pid}`;
  if (existsSync(UI_TEST_RENDERER_DIR)) renameSync(UI_TEST_RENDERER_DIR, old);
  renameSync(fresh, UI_TEST_RENDERER_DIR);
  rmSync(old, { recursive: true, force: true });
}

function isFresh(): boolean {
  const index = join(UI_TEST_RENDERER_DIR, 'index.html');
  if (!existsSync(index)) return false;
  const builtAt = statSync(index).mtimeMs;
  return SOURCES.every((source) => newestChange(source) < builtAt);
}

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}
