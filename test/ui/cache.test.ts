import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Core } from '../../src/main/core.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { callerSpec } from './support/grpc-proxy.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

/** A core with a real grpc-js-xds proxy kept in sync, so both caches are read all the time. */
async function coreWithProxy(): Promise<Core> {
  const core = await ui.core();
  await applyDataplane(core, backendDataplane('echo-1', 18001));
  ui.connect(core, { name: 'frontend-1', target: 'echo', register: callerSpec('frontend') });
  return core;
}

async function settingInForce(core: Core): Promise<unknown> {
  const settings = (await (await fetch(`${core.api.url}/settings`)).json()) as Record<string, unknown>;
  return settings['store.cache.expirationTime'];
}

async function lookups(page: Page): Promise<number> {
  return Number((await page.locator('[data-stat="Lookups"]').innerText()).replaceAll(',', ''));
}

interface EntriesSample {
  /** Test clock (epoch ms): the table was read at t0, then GET /cache asked and answered by t1. */
  t0: number;
  t1: number;
  /** Epoch ms when the table's own answer was asked for. */
  asOf: number;
  /** `expiresAt`: epoch ms when the row's answer says it expires; the shown time left may lag it by a clock tick. */
  rows: { key: string; timeLeftMs: number; expiresAt: number; text: string }[];
  api: { key: string; ageMs: number; timeLeftMs: number }[];
}

/** Reads the table, then asks GET /cache, in one go inside the page: nothing else runs in between. */
const SAMPLE_ENTRIES = `(async () => {
  const t0 = Date.now();
  const table = document.querySelector('[role=grid][aria-label="Cache entries"]');
  const asOf = Number(table?.closest('[data-as-of]')?.getAttribute('data-as-of'));
  const rows = [...(table?.querySelectorAll('[role=row]:not([aria-rowindex="1"])') ?? [])].map((row) => ({
    key: row.querySelector('[role=gridcell]')?.getAttribute('title') ?? '',
    timeLeftMs: Number(row.querySelector('[data-time-left-ms]')?.getAttribute('data-time-left-ms')),
    expiresAt: Number(row.querySelector('[data-expires-at]')?.getAttribute('data-expires-at')),
    text: row.textContent,
  }));
  const api = (await (await fetch('/cache')).json()).entries;
  return { t0, t1: Date.now(), asOf, rows, api };
})()`;

/**
 * Waits inside the page until the soonest of the table's rows expires by its answer, then until the
 * page has drawn twice, and reads the table, then GET /cache.
 */
const AFTER_NEXT_EXPIRY = `(async () => {
  const rows = () => [...document.querySelectorAll('[role=grid][aria-label="Cache entries"] [role=row]:not([aria-rowindex="1"])')].map((row) => ({
    key: row.querySelector('[role=gridcell]')?.getAttribute('title') ?? '',
    expiresAt: Number(row.querySelector('[data-expires-at]')?.getAttribute('data-expires-at')),
  }));
  let next;
  while (!next) {
    next = rows().filter((row) => row.expiresAt > Date.now()).sort((a, b) => a.expiresAt - b.expiresAt)[0];
    if (!next) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, next.expiresAt - Date.now() + 1));
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const at = Date.now();
  const shown = rows();
  const api = (await (await fetch('/cache')).json()).entries;
  return { expired: next.key, at, answeredAt: Date.now(), rows: shown, api };
})()`;

// Real proxies on a shared 2-core box: give each test room; nothing here asserts on time.
describe('Cache view', { timeout: 60_000 }, () => {
  it('shows live counters per operation and type, MeshContext counters and the entries of a core serving a real proxy', async () => {
    const core = await coreWithProxy();
    const { page } = await ui.open(core, '#/cache');

    const dataplaneList = page.locator('[data-counter="list:Dataplane"]');
    await dataplaneList.waitFor();
    expect(await dataplaneList.innerText()).toMatch(/Dataplane\s+list\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+\d+\.\d%/);
    await eventually(async () => expect(await page.locator('[data-counter="mesh-context"]').innerText()).toMatch(/MeshContext[\s\S]*\d+\.\d%/));
    await page.locator('[role=row]', { hasText: 'LIST:Dataplane:default' }).waitFor();
    expect(await page.getByRole('img', { name: /lookups per second/ }).locator('canvas').count()).toBe(1);

    // The proxy's sync tracker keeps reading: the view follows without a reload.
    const before = await lookups(page);
    await eventually(async () => expect(await lookups(page)).toBeGreaterThan(before));
  });

  it('agrees with GET /cache at every moment it is sampled, at the default 1 s expiration', async () => {
    const core = await coreWithProxy();
    // The defaults the issue was seen with: entries live one second and the proxy reads every second.
    core.settings.update({ 'store.cache.expirationTime': '1s', 'xds.dataplaneConfigurationRefreshInterval': '1s' });
    const { page } = await ui.open(core, '#/cache');
    await page.locator('[role=row]', { hasText: 'LIST:Dataplane:default' }).waitFor();

    let checkedShown = 0;
    let checkedListed = 0;
    for (let index = 0; index < 40; index++) {
      // Spread over the expiration's phase: the old view agreed only at one phase.
      await new Promise((resolve) => setTimeout(resolve, 90 + ((index * 137) % 240)));
      const sample = (await page.evaluate(SAMPLE_ENTRIES)) as EntriesSample;
      const gap = sample.t1 - sample.t0;
      const staleness = sample.t0 - sample.asOf;
      const context = JSON.stringify(sample);
      // GET /cache lists fresh entries only: the table never calls one expired.
      for (const row of sample.rows) expect(row.text, context).not.toMatch(/expired/);
      // What the table shows as live until after GET /cache answered is in that answer (the core's
      // own expiry is never sooner than the one its answer gave)…
      const apiKeys = new Set(sample.api.map((entry) => entry.key));
      for (const row of sample.rows.filter((each) => each.expiresAt > sample.t1)) {
        expect(apiKeys.has(row.key), `${row.key} shown live but not in GET /cache: ${context}`).toBe(true);
        checkedShown++;
      }
      // …and what the API had loaded before the table's own answer was asked for, and still has
      // for a while, the table shows: no stale "Nothing cached".
      const tableKeys = new Set(sample.rows.map((row) => row.key));
      for (const entry of sample.api.filter((each) => each.ageMs > staleness + gap && each.timeLeftMs > staleness + gap)) {
        expect(tableKeys.has(entry.key), `${entry.key} in GET /cache but not in the table: ${context}`).toBe(true);
        checkedListed++;
      }
    }
    // The rules were put to work, not skipped for want of entries.
    expect(checkedShown).toBeGreaterThan(20);
    expect(checkedListed).toBeGreaterThan(5);
  });

  it('drops an entry the moment its time runs out, agreeing with GET /cache right after each expiry', async () => {
    const core = await coreWithProxy();
    core.settings.update({ 'store.cache.expirationTime': '1s', 'xds.dataplaneConfigurationRefreshInterval': '1s' });
    const { page } = await ui.open(core, '#/cache');
    await page.locator('[role=row]', { hasText: 'LIST:Dataplane:default' }).waitFor();

    for (let index = 0; index < 8; index++) {
      const sample = (await page.evaluate(AFTER_NEXT_EXPIRY)) as {
        expired: string;
        at: number;
        answeredAt: number;
        rows: { key: string; expiresAt: number }[];
        api: { key: string }[];
      };
      const context = JSON.stringify(sample);
      // Once drawn after the expiry, no row is past its own: the one that ran out is gone…
      expect(sample.rows.filter((row) => row.expiresAt <= sample.at), context).toEqual([]);
      // …and every row left that is still live once GET /cache answered is one it lists (the core's
      // expiry is never sooner than the row's).
      const apiKeys = new Set(sample.api.map((entry) => entry.key));
      expect(sample.rows.filter((row) => row.expiresAt > sample.answeredAt && !apiKeys.has(row.key)), context).toEqual([]);
    }
  });

  it('keeps the chart history across visits of other views', async () => {
    const core = await coreWithProxy();
    const { page } = await ui.open(core, '#/cache');
    const chart = page.getByTestId('cache-rate-chart');
    await eventually(async () => expect(Number(await chart.getAttribute('data-samples'))).toBeGreaterThanOrEqual(3));
    const before = Number(await chart.getAttribute('data-samples'));
    await page.keyboard.press('1');
    await page.locator('main[data-view=proxies] h1').waitFor();
    await page.keyboard.press('2');
    await page.locator('main[data-view=cache] h1').waitFor();
    expect(Number(await chart.getAttribute('data-samples'))).toBeGreaterThanOrEqual(before);
  });

  it('changing the cache expiration here changes the setting in force, the view and marks the chart', async () => {
    const core = await coreWithProxy();
    const { page } = await ui.open(core, '#/cache');
    const control = page.getByTestId('cache-expiration');
    const input = control.getByRole('textbox');
    await eventually(async () => expect(await input.inputValue()).toBe('100ms'));

    await input.fill('250ms');
    await input.press('Enter');

    await control.getByRole('status').filter({ hasText: '250ms in force' }).waitFor();
    expect(await settingInForce(core)).toBe('250ms');
    expect(core.settings.get('store.cache.expirationTime')).toBe(250);
    await page.locator('.tile', { hasText: 'Entries' }).getByText('TTL 250ms').waitFor();
    await page.getByTestId('ttl-changes').getByText(/TTL\s+100ms\s+→\s+250ms/).waitFor();

    await control.getByRole('radio', { name: '1s' }).click();
    await eventually(async () => expect(await settingInForce(core)).toBe('1s'));
    // The setting is in force before the answer (or its event) reaches the view: wait for the view.
    await control.getByRole('radio', { name: '1s', checked: true }).waitFor();
    await page.getByTestId('ttl-changes').getByText(/TTL\s+250ms\s+→\s+1s/).waitFor();
  });

  it('follows a change made elsewhere, and shows a refused value at the field without changing anything', async () => {
    const core = await coreWithProxy();
    const { page, errors } = await ui.open(core, '#/cache');
    const control = page.getByTestId('cache-expiration');
    const input = control.getByRole('textbox');
    await eventually(async () => expect(await input.inputValue()).toBe('100ms'));

    core.settings.update({ 'store.cache.expirationTime': '2s' });
    await eventually(async () => expect(await input.inputValue()).toBe('2s'));

    await input.fill('2 hours');
    await input.press('Enter');
    const error = control.getByRole('alert');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/duration/);
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(core.settings.get('store.cache.expirationTime')).toBe(2000);
    // Chromium logs every 4xx answer to fetch; this one was the point of the test.
    expect(errors).toEqual([expect.stringContaining('status of 400 (Bad Request)')]);
    errors.splice(0);
  });
});
