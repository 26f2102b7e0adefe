import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type CDPSession } from 'playwright-core';
import { defaultRendererDir } from '../../src/main/api/static-files.js';
import { startCore } from '../../src/main/core.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const PROXIES = 1000;
/** Chromium counts as idle once its processes use less than this much CPU time in one window. */
const IDLE_CPU_MS = 20;
const IDLE_WINDOW_MS = 250;
/** Past this, the round runs anyway. */
const IDLE_DEADLINE_MS = 10_000;
/** Every proxy counted and the first rows in the table. */
const FIRST_SCREENFUL = `document.querySelector('[data-testid=proxy-counts]')?.textContent === '0 online · ${PROXIES} total' && document.querySelector('[role=rowgroup] [role=row]') !== null`;
const PAINTED = 'first screenful painted at';

/**
 * The Proxies view with 1000 Dataplanes in Debian's chromium: from the start of navigation to the
 * first screenful painted (every row counted, the first rows drawn), and from a keypress (End,
 * Home) to the selected row painted. Both are timed inside the page: Playwright's own waiting polls
 * at 20, 50, 100, 100 and then every 500 ms, and would round a figure up to its next poll. Each
 * round starts once the browser is idle (see `browserIdle`). Needs the built renderer
 * (`npm run build:renderer`).
 */
export async function proxiesView(options: BenchOptions): Promise<BenchRow[]> {
  if (!existsSync(join(defaultRendererDir(), 'index.html'))) {
    throw new Error(`no built renderer in ${defaultRendererDir()}: run npm run build:renderer first`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-'));
  const core = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
  const browser = await chromium.launch({
    executablePath: process.env.MESHDESK_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    for (let index = 0; index < PROXIES; index++) {
      await core.manager.upsert({
        type: 'Dataplane',
        mesh: 'default',
        name: `proxy-${String(index).padStart(4, '0')}`,
        labels: {},
        spec: { networking: { address: '127.0.0.1', inbound: [{ port: 18000 + index, tags: { 'kuma.io/service': `svc-${index % 50}` } }] } },
      });
    }
    const renders: number[] = [];
    const keys: number[] = [];
    const browserSession = await browser.newBrowserCDPSession();
    for (let round = 0; round < (options.quick ? 3 : 7); round++) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      await browserIdle(browserSession);
      // Runs in each new document before the page's own scripts, so no frame goes unseen. It reports
      // on the console: evaluating in the page meanwhile would load Playwright's script into it.
      await page.addInitScript(`${whenPainted('firstScreenPainted', FIRST_SCREENFUL)}
        firstScreenPainted.then((paintedAt) => console.debug('${PAINTED} ' + paintedAt));`);
      const painted = page.waitForEvent('console', (message) => message.text().startsWith(PAINTED));
      await page.goto(`${core.api.url}/gui/#/proxies`);
      // performance.now() in the page counts from the start of its navigation.
      renders.push(Number((await painted).text().slice(PAINTED.length)));
      await page.getByRole('grid', { name: 'Proxies' }).focus();
      for (const [key, name] of [['End', 'proxy-0999'], ['Home', 'proxy-0000']] as const) {
        // Ends in `null`: evaluate would otherwise wait for the script's value, the promise of a paint still to come.
        await page.evaluate(`addEventListener('keydown', (event) => (window.keyDownAt = event.timeStamp), { capture: true, once: true });
          ${whenPainted('selectionPainted', `document.querySelector('[role=row][aria-selected=true]')?.textContent.includes('${name}')`)}; null`);
        await page.keyboard.press(key);
        keys.push((await page.evaluate('window.selectionPainted.then((paintedAt) => paintedAt - window.keyDownAt)')) as number);
      }
      await page.close();
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    return [
      { benchmark: `Proxies view, ${PROXIES} proxies: navigation → first screenful painted, median`, value: median(renders), unit: 'ms', note: 'target ≤ 500 ms' },
      { benchmark: `Proxies view, ${PROXIES} proxies: End/Home keydown → selected row painted, median`, value: median(keys), unit: 'ms' },
    ];
  } finally {
    await browser.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Page script: `window[variable]` becomes a promise of the time (performance.now()) at which
 * `condition` first holds and the frame showing it is painted. The condition is checked in every
 * animation frame, before the frame is drawn; a task queued from there runs once it is.
 */
function whenPainted(variable: string, condition: string): string {
  return `window.${variable} = new Promise((resolve) => {
    const check = () => (${condition}) ? setTimeout(() => resolve(performance.now())) : requestAnimationFrame(check);
    requestAnimationFrame(check);
  });`;
}

/**
 * Resolves once Chromium's own processes stop using the CPU. Each new window makes the browser load
 * its UI (the omnibox popup's WebUI pages, in renderers of their own): about 2 s of CPU, most of one
 * of this machine's two cores, which a page opened meanwhile would have to share.
 */
async function browserIdle(session: CDPSession): Promise<void> {
  const giveUpAt = performance.now() + IDLE_DEADLINE_MS;
  let before = await cpuTimeMs(session);
  while (performance.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    const now = await cpuTimeMs(session);
    if (now - before < IDLE_CPU_MS) return;
    before = now;
  }
}

/** CPU time used so far by every process of the browser. */
async function cpuTimeMs(session: CDPSession): Promise<number> {
  const { processInfo } = await session.send('SystemInfo.getProcessInfo');
  return processInfo.reduce((sum, process) => sum + process.cpuTime * 1000, 0);
}
