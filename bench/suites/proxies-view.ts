import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { defaultRendererDir } from '../../src/main/api/static-files.js';
import { startCore } from '../../src/main/core.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const PROXIES = 1000;

/**
 * The Proxies view with 1000 Dataplanes in Debian's chromium: from navigation to every row
 * counted and the first screenful drawn, and the time from a keypress (End, Home) to the
 * selected row being painted. Needs the built renderer (`npm run build:renderer`).
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
        spec: { networking: { address: '127.0.0.1', inbound: [{ port: 18000, tags: { 'kuma.io/service': `svc-${index % 50}` } }] } },
      });
    }
    const renders: number[] = [];
    const keys: number[] = [];
    for (let round = 0; round < (options.quick ? 3 : 7); round++) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const started = performance.now();
      await page.goto(`${core.api.url}/gui/#/proxies`);
      await page.getByText(`0 online · ${PROXIES} total`).waitFor();
      await page.locator('[role=rowgroup] [role=row]').first().waitFor();
      renders.push(performance.now() - started);
      await page.getByRole('grid', { name: 'Proxies' }).focus();
      for (const [key, name] of [['End', 'proxy-0999'], ['Home', 'proxy-0000']] as const) {
        const pressed = performance.now();
        await page.keyboard.press(key);
        await page.locator('[role=row][aria-selected=true]', { hasText: name }).waitFor();
        keys.push(performance.now() - pressed);
      }
      await page.close();
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    return [
      { benchmark: `Proxies view, ${PROXIES} proxies: navigation → rows drawn, median`, value: median(renders), unit: 'ms', note: 'target ≤ 500 ms' },
      { benchmark: `Proxies view, ${PROXIES} proxies: End/Home → selected row painted, median`, value: median(keys), unit: 'ms' },
    ];
  } finally {
    await browser.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
