// `npm run headless`: the command line is checked first (help and usage errors answer at once,
// without a build), the UI is built only when its sources changed since the last build, and then
// headless mode (src/main/headless.ts) runs with the same arguments.
import { parseCoreOptions, takeDemoFlag, UsageError, wantsHelp } from '../src/main/core-options.js';
import { ensureRendererBuild, HEADLESS_RENDERER_DIR, rendererBuildIsFresh } from './renderer-build.js';

function startsTheCore(argv: string[]): boolean {
  if (wantsHelp(argv)) return false;
  try {
    parseCoreOptions(takeDemoFlag(argv).coreArgs);
    return true;
  } catch (error) {
    if (error instanceof UsageError) return false; // headless mode says what is wrong
    throw error;
  }
}

if (startsTheCore(process.argv.slice(2)) && !rendererBuildIsFresh(HEADLESS_RENDERER_DIR)) {
  console.log('meshdesk: building the UI (its sources changed since the last build)…');
  await ensureRendererBuild(HEADLESS_RENDERER_DIR);
}
await import('../src/main/headless.js');
