import { describe, expect, it } from 'vitest';
import type { XdsStats } from '../../src/shared/stats-types.js';
import type { Core } from '../../src/main/core.js';
import { applyDataplane, clientDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { callerSpec } from './support/grpc-proxy.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

/** Connects a registering proxy under `strategy` and waits until its first config is complete, so the next one gets another strategy. */
async function connectUnder(core: Core, strategy: 'sleep' | 'invalidate' | 'none', name: string, port: number): Promise<void> {
  core.settings.update({ 'xds.postCreateStrategy': strategy });
  ui.connect(core, { name, target: 'echo', register: callerSpec(name.replace(/-\d+$/, ''), port) });
  await eventually(async () => {
    const stats = (await (await fetch(`${core.api.url}/stats/xds`)).json()) as XdsStats;
    const proxy = stats.proxies.find((each) => each.proxyId === `default.${name}`);
    expect(proxy).toMatchObject({ strategy, breakdown: { total: { complete: true } } });
  });
}

const DURATION = /^\d+(\.\d+)? (µs|ms|s)$/;

// Real proxies on a shared 2-core box: give each test room; nothing here asserts on time.
describe('Sync timing view', { timeout: 60_000 }, () => {
  it('shows proxies that connected under different strategies side by side, with each time to first config', async () => {
    const core = await ui.core();
    await connectUnder(core, 'invalidate', 'frontend-1', 19001);
    await connectUnder(core, 'sleep', 'checkout-1', 19002);
    await applyDataplane(core, clientDataplane('api-client'));
    ui.connect(core, { name: 'api-client', target: 'echo' });

    const { page } = await ui.open(core, '#/sync');

    for (const strategy of ['invalidate', 'sleep', 'api']) {
      const card = page.locator(`[data-strategy="${strategy}"]`);
      await card.waitFor();
      expect(await card.locator('[data-figure="median"]').innerText()).toMatch(DURATION);
      expect(await card.locator('[data-figure="p90"]').innerText()).toMatch(DURATION);
    }
    // Cards in the order sleep, invalidate, none, api; the strategy in force is labelled.
    expect(await page.locator('[data-strategy]').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-strategy')))).toEqual([
      'sleep',
      'invalidate',
      'api',
    ]);
    expect(await page.locator('[data-strategy="sleep"]').innerText()).toContain('in force');

    for (const [proxy, strategy] of [
      ['default.frontend-1', 'invalidate'],
      ['default.checkout-1', 'sleep'],
      ['default.api-client', 'API-created'],
    ] as const) {
      const row = page.locator('[role=row]', { hasText: proxy });
      await row.locator('[data-total]', { hasText: DURATION }).waitFor();
      expect(await row.innerText()).toContain(strategy);
    }
    for (const chart of [/first config per proxy/, /ticks per second/, /tick duration distribution/, /latency distribution/]) {
      expect(await page.getByRole('img', { name: chart }).locator('canvas').count()).toBe(1);
    }
  });

  it('shows a proxy that connects while the view is open, and opens its timeline with the keyboard', async () => {
    const core = await ui.core();
    core.settings.update({ 'xds.postCreateStrategy': 'none' });
    const { page } = await ui.open(core, '#/sync');
    await page.getByText('No proxy has connected yet.').waitFor();

    ui.connect(core, { name: 'late-1', target: 'echo', register: callerSpec('late', 19003) });

    await page.locator('[data-strategy="none"]').locator('[data-figure="median"]', { hasText: DURATION }).waitFor();
    const row = page.locator('[role=row]', { hasText: 'default.late-1' });
    await row.locator('[data-total]', { hasText: DURATION }).waitFor();

    await page.getByRole('grid', { name: 'Time to first config per proxy' }).focus();
    await page.keyboard.press('Enter');
    await eventually(() => expect(new URL(page.url()).hash).toBe('#/proxies/default.late-1/timeline'));
  });
});
