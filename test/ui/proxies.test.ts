import type { Locator } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawDeltaClient } from '../../src/main/xds/server/testing/raw-delta-client.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { hashOf } from './support/browser.js';
import { callerSpec } from './support/grpc-proxy.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

describe('Proxies view', () => {
  it("shows each Dataplane with its origin, state and every type's ACKed version from a real xDS client", async () => {
    const core = await ui.core();
    await ui.frontendCallingEcho(core);
    const { page } = await ui.open(core);

    const proxyRow = page.locator('[role=row]', { hasText: 'frontend-1' });
    await proxyRow.locator('[data-xds-state=ack]').nth(3).waitFor();
    expect(await proxyRow.locator('[data-xds-state=ack]').count()).toBe(4);
    expect(await proxyRow.innerText()).toMatch(/frontend[\s\S]*proxy[\s\S]*online/);
    // Time to first config, once every type is ACKed.
    await proxyRow.getByText(/^\d+(\.\d+)? (ms|s)$/).waitFor();

    const backendRow = page.locator('[role=row]', { hasText: 'echo-1' });
    expect(await backendRow.innerText()).toMatch(/echo[\s\S]*API[\s\S]*never seen/);
    expect(await page.getByTestId('proxy-counts').innerText()).toBe('1 online · 2 total');
  });

  it('shows the xDS protocol of each proxy, State of the World or delta, in the list and in its header', async () => {
    const core = await ui.core();
    ui.connect(core, { name: 'sotw-1', target: 'echo', register: callerSpec('sotw') });
    const delta = new RawDeltaClient(core.xds.port, {
      id: 'default.delta-1',
      metadata: { 'dataplane.resource': JSON.stringify({ type: 'Dataplane', mesh: 'default', name: 'delta-1', ...callerSpec('delta', 19002) }) },
    });
    onTestFinished(() => delta.close());
    delta.send(CLUSTER_TYPE_URL);
    const { page } = await ui.open(core);

    const badge = (name: string) => page.locator('[role=row]', { hasText: name }).getByTestId('xds-protocol');
    await badge('delta-1').waitFor();
    await badge('sotw-1').waitFor();
    expect([await badge('sotw-1').innerText(), await badge('delta-1').innerText()]).toEqual(['SotW', 'Delta']);

    await page.locator('[role=row]', { hasText: 'delta-1' }).getByRole('link').click();
    expect(await page.locator('main header').first().getByTestId('xds-protocol').innerText()).toBe('Delta');
  });

  it('shows a proxy that connects after the page loaded, without a reload', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core);
    await page.getByText('No Dataplanes yet.').waitFor();
    await page.evaluate('window.loadedOnce = true');

    ui.connect(core, { name: 'late-1', target: 'echo', register: callerSpec('late') });

    await page.locator('[role=row]', { hasText: 'late-1' }).getByText('online').waitFor();
    expect(await page.evaluate('window.loadedOnce')).toBe(true);
  });

  it('filters by search and state, and opens the selected proxy with the keyboard', async () => {
    const core = await ui.core();
    for (const [index, name] of ['alpha-1', 'beta-1', 'gamma-1'].entries()) await applyDataplane(core, backendDataplane(name, 18000 + index));
    ui.connect(core, { name: 'delta-1', target: 'echo', register: callerSpec('delta') });
    const { page } = await ui.open(core);
    const rows = page.locator('[role=rowgroup] [role=row]');
    await page.locator('[role=row]', { hasText: 'delta-1' }).getByText('online').waitFor();

    await page.getByRole('radio', { name: /^Online/ }).click();
    await expectRows(rows, ['default/delta-1']);
    await page.getByRole('radio', { name: /^All/ }).click();
    await page.keyboard.press('/');
    await page.keyboard.type('beta');
    await expectRows(rows, ['default/beta-1']);
    await page.keyboard.press('Escape');
    await expectRows(rows, ['default/alpha-1', 'default/beta-1', 'default/delta-1', 'default/gamma-1']);

    await page.getByRole('grid', { name: 'Proxies' }).focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('[role=row][aria-selected=true]').innerText()).toContain('delta-1');
    await page.keyboard.press('Enter');
    expect(await hashOf(page)).toBe('#/proxies/default.delta-1');
  });

  it('draws a screenful of rows for 1000 proxies, and reaches the last one with End', async () => {
    const core = await ui.core();
    const names = Array.from({ length: 1000 }, (_, index) => `proxy-${String(index).padStart(4, '0')}`);
    // Through the manager rather than 1000 HTTP requests: this test is about the UI, not the API.
    for (const [index, name] of names.entries()) {
      await core.manager.upsert({
        type: 'Dataplane',
        mesh: 'default',
        name,
        labels: {},
        spec: { networking: { address: '127.0.0.1', inbound: [{ port: 18000 + index, tags: { 'kuma.io/service': 'echo' } }] } },
      });
    }
    const { page } = await ui.open(core);
    await eventually(async () => expect(await page.getByTestId('proxy-counts').innerText()).toBe('0 online · 1000 total'));

    const drawn = await page.locator('[role=rowgroup] [role=row]').count();
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThan(80);

    await page.getByRole('grid', { name: 'Proxies' }).focus();
    await page.keyboard.press('End');
    const last = page.locator('[role=row][aria-selected=true]');
    await eventually(async () => expect(await last.innerText()).toContain('proxy-0999'));
    expect(await last.isVisible()).toBe(true);
    // Still a screenful, at the other end.
    expect(await page.locator('[role=rowgroup] [role=row]').count()).toBeLessThan(80);
  }, 120_000); // writing 1000 Dataplanes on a shared 2-core machine takes a while; nothing here is timed
});

async function expectRows(rows: Locator, names: string[]): Promise<void> {
  await eventually(async () => {
    const texts = await rows.locator('.name a').allInnerTexts();
    expect(texts).toEqual(names);
  });
}
