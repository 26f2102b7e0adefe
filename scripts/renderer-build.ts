// The built renderer, made only when its sources changed: `npm run headless` serves it from
// out/renderer, the UI tests from a folder of their own. One freshness rule and one build for both.
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const RENDERER_SOURCE = 'src/renderer';
/** What a renderer build is made from: a change to any of these (or a dependency update) calls for a new build. */
export const RENDERER_SOURCES = [RENDERER_SOURCE, 'src/shared', 'package-lock.json'];
/** Where headless mode's API serves the UI from (see src/main/api/static-files.ts). */
export const HEADLESS_RENDERER_DIR = resolve('out/renderer');

/** True when `outDir` holds a build newer than every source file (modification times). */
export function rendererBuildIsFresh(outDir: string, sources: readonly string[] = RENDERER_SOURCES): boolean {
  const index = join(outDir, 'index.html');
  if (!existsSync(index)) return false;
  const builtAt = statSync(index).mtimeMs;
  return sources.every((source) => newestChange(source) < builtAt);
}

/**
 * Builds the renderer into `outDir` unless it is fresh; says which it did. The build goes beside
 * and is then swapped in, so a server or test reading `outDir` never sees a half-written folder.
 */
export async function ensureRendererBuild(outDir: string): Promise<'fresh' | 'built'> {
  if (rendererBuildIsFresh(outDir)) return 'fresh';
  const fresh = `${outDir}-${process.pid}`;
  const { build } = await import('vite'); // only when building: loading vite alone costs a second
  await build({ configFile: join(RENDERER_SOURCE, 'vite.config.ts'), logLevel: 'warn', build: { outDir: fresh, emptyOutDir: true } });
  const old = `${outDir}-old-${process.pid}`;
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(fresh, outDir);
  rmSync(old, { recursive: true, force: true });
  return 'built';
}

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}
