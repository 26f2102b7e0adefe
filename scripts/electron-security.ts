// `npm run security:electron`: Electronegativity's static scan of the app (issue 7), failing on any
// high or medium finding and on any file it cannot read. It scans the main process and preload as
// written (TypeScript, which it parses, with the comments that record reviewed findings:
// `eng-disable <CHECK_ID>` beside the line, reason included) and the built renderer's page
// (`out/renderer/index.html`, for the CSP). Not the bundles: its parser predates private class
// fields, and bundling drops the review comments. The renderer's own script runs sandboxed, with
// no Electron API to misuse.
import run from '@doyensec/electronegativity';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const projectDir = join(import.meta.dirname, '..');
const scanDir = join(projectDir, 'build', 'security-scan');
const builtPage = join(projectDir, 'out', 'renderer', 'index.html');
const electronVersion = (createRequire(import.meta.url)('electron/package.json') as { version: string }).version;
const FAILING_SEVERITIES = new Set(['HIGH', 'MEDIUM']);

/** What ships, minus tests: electron imports are confined to these folders (see boundary.test.ts). */
function collectSources(): void {
  rmSync(scanDir, { recursive: true, force: true });
  const shipped = (source: string) => !/\.test\.ts$|[\\/]testing([\\/]|$)/.test(source);
  cpSync(join(projectDir, 'src', 'main'), join(scanDir, 'main'), { recursive: true, filter: shipped });
  cpSync(join(projectDir, 'src', 'preload'), join(scanDir, 'preload'), { recursive: true, filter: shipped });
  cpSync(builtPage, join(scanDir, 'renderer', 'index.html'));
}

if (!existsSync(builtPage)) {
  console.error('security:electron: out/renderer/index.html is missing; run `npx electron-vite build` first');
  process.exit(1);
}
collectSources();
const result = await run({
  input: scanDir,
  isRelative: true,
  isVerbose: false,
  electronVersionOverride: electronVersion,
  parserPlugins: [],
  customScan: [],
  excludeFromScan: [],
});

for (const issue of result.issues) {
  const review = issue.manualReview ? ' (review required)' : '';
  console.log(`${issue.severity.name.padEnd(13)} ${issue.id} ${issue.file}:${issue.location.line}${review} ${issue.shortenedURL}`);
}
const unread = result.errors.filter((error) => !error.tolerable);
for (const error of unread) console.error(`security:electron: could not scan ${error.file}: ${error.message}`);
const failing = result.issues.filter((issue) => FAILING_SEVERITIES.has(issue.severity.name));
console.log(`security:electron: ${result.issues.length} finding(s), ${failing.length} high or medium, ${unread.length} unreadable file(s)`);
if (failing.length > 0 || unread.length > 0) process.exitCode = 1;
