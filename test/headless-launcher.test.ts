import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rendererBuildIsFresh } from '../scripts/renderer-build.js';
import { runProcess as run } from './support/cli-process.js';
import { tempDir } from './support/temp-dir.js';


describe('npm run headless', () => {
  it('prints its help at once: no UI build, exit 0', async () => {
    const { code, stdout } = await run('npm', ['run', '--silent', 'headless', '--', '--help']);
    expect(stdout).toContain('usage: npm run headless -- [--data-dir DIR] [--api-port N] [--ads-port N] [--host ADDRESS] [--demo] [--help]');
    expect(stdout).not.toContain('building the UI');
    expect(code).toBe(0);
  });

  it('reports a wrong flag without building the UI first', async () => {
    const { code, stdout, stderr } = await run('npm', ['run', '--silent', 'headless', '--', '--verbose']);
    expect(stderr).toContain('unknown argument "--verbose"');
    expect(stdout).not.toContain('building the UI');
    expect(code).toBe(1);
  });
});

describe('the renderer build is made again only when a source changed', () => {
  function project(): { sources: string[]; outDir: string; source: string } {
    const root = tempDir();
    mkdirSync(join(root, 'src', 'nested'), { recursive: true });
    const source = join(root, 'src', 'nested', 'App.svelte');
    writeFileSync(source, '<p>hi</p>');
    const lock = join(root, 'package-lock.json');
    writeFileSync(lock, '{}');
    const outDir = join(root, 'out');
    mkdirSync(outDir);
    return { sources: [join(root, 'src'), lock], outDir, source };
  }

  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

  it('no build yet: build', () => {
    const { sources, outDir } = project();
    expect(rendererBuildIsFresh(outDir, sources)).toBe(false);
  });

  it('a build newer than every source: reuse it', () => {
    const { sources, outDir, source } = project();
    for (const path of [source, join(source, '..'), ...sources]) utimesSync(path, at(1), at(1));
    writeFileSync(join(outDir, 'index.html'), '<html></html>');
    utimesSync(join(outDir, 'index.html'), at(2), at(2));
    expect(rendererBuildIsFresh(outDir, sources)).toBe(true);
  });

  it('a source (however deep) or the lock file changed after the build: build again', () => {
    const { sources, outDir, source } = project();
    for (const path of [source, join(source, '..'), ...sources]) utimesSync(path, at(1), at(1));
    writeFileSync(join(outDir, 'index.html'), '<html></html>');
    utimesSync(join(outDir, 'index.html'), at(2), at(2));
    utimesSync(source, at(3), at(3));
    expect(rendererBuildIsFresh(outDir, sources)).toBe(false);
    utimesSync(source, at(1), at(1));
    utimesSync(sources[1]!, at(3), at(3));
    expect(rendererBuildIsFresh(outDir, sources)).toBe(false);
  });
});
