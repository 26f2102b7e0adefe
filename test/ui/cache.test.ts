import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Core } from '../../src/main/core.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

const registering = {
  networking: {
    address: '127.0.0.1',
    inbound: [{ port: 19001, tags: { 'kuma.io/service': 'frontend', 'kuma.io/protocol': 'grpc' } }],
    outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }],
  },
};

/** A core with a real grpc-js-xds proxy kept in sync, so both caches are read all the time. */
async function coreWithProxy(): Promise<Core> {
  const core = await ui.core();
  await applyDataplane(core, backendDataplane('echo-1', 18001));
  ui.connect(core, { name: 'frontend-1', target: 'echo', register: registering });
  return core;
}

async function settingInForce(core: Core): Promise<unknown> {
  const settings = (await (await fetch(`${core.api.url}/settings`)).json()) as Record<string, unknown>;
  return settings['store.cache.expirationTime'];
}

async function lookups(page: Page): Promise<number> {
  return Number((await page.locator('[data-stat="Lookups"]').innerText()).replaceAll(',', ''));
}

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
