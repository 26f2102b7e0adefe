// `npm run electron:native` (run by `npm start` and `npm run dist`): better-sqlite3 compiled for
// Electron's ABI, written to build/electron-native/ and loaded by the shell through better-sqlite3's
// `nativeBinding` option. node_modules keeps its Node build, which the tests, headless mode and the
// CLI load (SPEC §1). Needs internet once per Electron/better-sqlite3 version: a prebuilt binary
// from GitHub, or Electron's headers from electronjs.org plus a C++ toolchain to compile one.
import { rebuild } from '@electron/rebuild';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { ELECTRON_NATIVE_DIR, NATIVE_BINDING_FILE } from '../src/main/electron/native-binding.js';

const require = createRequire(import.meta.url);
const electronDir = dirname(require.resolve('electron/package.json'));
const projectDir = join(import.meta.dirname, '..');
const outDir = join(projectDir, ELECTRON_NATIVE_DIR);
const sqliteDir = dirname(require.resolve('better-sqlite3/package.json'));
const versionOf = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

/** What the binary was built for; a different one means building again. */
const target = {
  electron: versionOf(electronDir),
  /** Electron's NODE_MODULE_VERSION, which the addon must declare. */
  abi: readFileSync(join(electronDir, 'abi_version'), 'utf8').trim(),
  betterSqlite3: versionOf(sqliteDir),
  platform: process.platform,
  arch: process.env.npm_config_arch ?? process.arch,
};
const binary = join(outDir, NATIVE_BINDING_FILE);
const stampFile = join(outDir, 'target.json');

function isUpToDate(): boolean {
  return existsSync(binary) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === JSON.stringify(target) && abiProblem() === undefined;
}

/**
 * Node refuses an Electron addon, naming the ABI it was built for: that is the check. An addon Node
 * loads was built against Node's headers (npm's `nodedir` setting, `/usr` on Debian, does that).
 */
function abiProblem(): string | undefined {
  try {
    require(binary);
  } catch (error) {
    const declared = /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires/.exec((error as Error).message)?.[1];
    return declared === target.abi ? undefined : `${binary} declares ABI ${declared ?? 'unknown'}; Electron ${target.electron} needs ${target.abi}`;
  }
  return `${binary} loads in Node ${process.version}: it was built against Node's headers, not Electron's`;
}

/**
 * @electron/rebuild rebuilds in place, so it works on a copy of better-sqlite3 (without its Node
 * build) in a scratch app folder; only the resulting .node file is kept.
 */
async function build(): Promise<void> {
  const work = join(outDir, 'work');
  rmSync(work, { recursive: true, force: true });
  try {
    await buildIn(work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function buildIn(work: string): Promise<void> {
  const moduleCopy = join(work, 'node_modules', 'better-sqlite3');
  mkdirSync(moduleCopy, { recursive: true });
  writeFileSync(
    join(work, 'package.json'),
    JSON.stringify({ name: 'meshdesk-electron-native', private: true, dependencies: { 'better-sqlite3': target.betterSqlite3 } }),
  );
  const nodeBuild = join(sqliteDir, 'build');
  cpSync(sqliteDir, moduleCopy, { recursive: true, filter: (source) => source !== nodeBuild && !source.startsWith(nodeBuild + sep) });
  // npm's `nodedir` would make node-gyp compile against Node's headers instead of Electron's.
  delete process.env.npm_config_nodedir;
  await rebuild({ buildPath: work, electronVersion: target.electron, arch: target.arch, onlyModules: ['better-sqlite3'], force: true });
  copyFileSync(join(moduleCopy, 'build', 'Release', NATIVE_BINDING_FILE), binary);
  const problem = abiProblem();
  if (problem) {
    rmSync(binary);
    throw new Error(problem);
  }
  writeFileSync(stampFile, JSON.stringify(target));
}

const description = `better-sqlite3 ${target.betterSqlite3} for Electron ${target.electron} (${target.platform}-${target.arch})`;
if (isUpToDate()) {
  console.log(`electron-native: ${description} is up to date in ${ELECTRON_NATIVE_DIR}`);
} else {
  console.log(`electron-native: building ${description} into ${ELECTRON_NATIVE_DIR} …`);
  try {
    await build();
    console.log(`electron-native: wrote ${binary}`);
  } catch (error) {
    console.error(
      [
        `electron-native: could not build ${description}.`,
        `  reason: ${error instanceof Error ? error.message : String(error)}`,
        '  This step needs internet access once per version: it downloads a prebuilt binary from GitHub',
        '  (prebuild-install) or, failing that, Electron\'s headers from https://www.electronjs.org/headers',
        '  and compiles with node-gyp (Python 3 and a C++ toolchain: build-essential, Xcode CLT or VS Build Tools).',
        '  Nothing else changed: node_modules keeps its Node build, so `npm test` and `npm run headless` still work.',
      ].join('\n'),
    );
    process.exitCode = 1;
  }
}
