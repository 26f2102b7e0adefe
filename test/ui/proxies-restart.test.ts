import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCore } from '../../src/main/core.js';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';
import { withControlPlaneCert } from '../support/with-control-plane-cert.js';
import { textOutsideItsBox } from './support/text-fit.js';
import { NOT_FOUND } from './support/browser.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

const dataplane = (name: string) => ({
  type: 'Dataplane',
  mesh: 'default',
  name,
  networking: { address: '127.0.0.1', inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': name } }] },
});

describe('proxies after a restart', () => {
  it('shows an earlier run\'s proxies as they stood "before the restart at …", with their timeline and first config', async () => {
    const dataDir = withControlPlaneCert(tempDir());
    const first = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    try {
      first.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
      await applyDataplane(first, dataplane('web-1') as { mesh: string; name: string });
      const web = new RawAdsClient(first.xds.port, { id: 'default.web-1' });
      web.send(CLUSTER_TYPE_URL);
      web.ack(await web.next());
      const bad = { ...dataplane('bad'), networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: {} }] } };
      const refused = new RawAdsClient(first.xds.port, { id: 'default.bad', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(bad) } });
      refused.send(CLUSTER_TYPE_URL);
      await refused.status;
      refused.close();
      await eventually(() => expect(first.xds.statusTracker.status('default.web-1')?.state).toBe('configured'));
      web.close();
    } finally {
      await first.close();
    }

    const core = await startTestCore(dataDir);
    // The smallest window: the State column is narrowest there.
    const { page, expected } = await ui.open(core, '#/proxies', { viewport: { width: 1024, height: 768 } });
    // Offline since the restart, it has no configuration: the detail asks for it and is told so.
    expected.push(NOT_FOUND);
    const webRow = page.getByRole('row').filter({ hasText: 'web-1' });
    await expect.poll(() => webRow.locator('[data-state]').getAttribute('data-before-restart')).toBe('');
    expect(await webRow.locator('[data-state]').innerText()).toMatch(/^offline\s+before restart\s+(just now|.+ ago)$/);
    const badRow = page.getByRole('row').filter({ hasText: 'bad' });
    await expect.poll(() => badRow.locator('[data-state]').getAttribute('data-state')).toBe('refused');
    expect(await badRow.locator('[data-state]').innerText()).toMatch(/^refused\s+before restart\s+INVALID_ARGUMENT$/);
    expect((await textOutsideItsBox(page, '[role=grid][aria-label=Proxies] .state-cell')).problems).toEqual([]);
    if (process.env.MESHDESK_SCREENSHOT_DIR) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, 'proxies-before-restart.png') });

    await page.goto(page.url().replace(/#.*$/, '#/proxies/default.web-1/timeline'));
    await expect.poll(() => page.getByTestId('before-restart').innerText()).toMatch(/^Before the restart at /);
    await expect.poll(() => page.getByTestId('first-config-stream').innerText()).toContain('before the restart at');
    expect(await page.getByTestId('first-config-total').innerText()).not.toContain('not complete');
    await expect.poll(() => page.locator('[data-event="restarted"]').count()).toBe(1);
    expect(await page.locator('[data-event="ack"]').count()).toBeGreaterThan(0);
    if (process.env.MESHDESK_SCREENSHOT_DIR) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, 'timeline-before-restart.png') });
  });
});
