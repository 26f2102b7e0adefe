// Vitest globalSetup: the UI tests load a built renderer from a real core. It is built into a
// folder of the tests' own (other work rebuilding out/renderer must not pull files from under a
// running test), once per run and only when a renderer source is newer than that build. The
// folder is inside this checkout (out/), not node_modules/.cache: checkouts that share one
// node_modules must not take each other's build for theirs.
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureRendererBuild } from '../../../scripts/renderer-build.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Absolute path of the renderer build the UI tests serve. */
    rendererDir: string;
  }
}

export const UI_TEST_RENDERER_DIR = resolve('out/ui-test-renderer');

export default async function buildRenderer(project: TestProject): Promise<void> {
  project.provide('rendererDir', UI_TEST_RENDERER_DIR);
  await ensureRendererBuild(UI_TEST_RENDERER_DIR);
}
