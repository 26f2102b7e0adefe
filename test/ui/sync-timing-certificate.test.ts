import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import type { XdsStats } from '../../src/shared/stats-types.js';
import { applyDataplane, tokenMetadata } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

describe('certificate issuance in Sync timing', () => {
  it("names the proxy's certificate issuance in the table's phase bar and in the first-config bar", async () => {
    const core = await ui.core();
    const mtls = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };
    await fetch(`${core.api.url}/meshes/default`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'default', mtls }) });
    await applyDataplane(core, {
      type: 'Dataplane',
      mesh: 'default',
      name: 'web-1',
      networking: { address: '127.0.0.1', inbound: [{ port: 18080, tags: { 'kuma.io/service': 'web' } }] },
    } as { mesh: string; name: string });
    // Its token, as every bootstrap carries it: a proxy of an mTLS mesh must send it.
    const proxy = new RawAdsClient(core.xds.port, { id: 'default.web-1', metadata: tokenMetadata(core, 'web-1') });
    try {
      proxy.send(CLUSTER_TYPE_URL);
      proxy.ack(await proxy.next());
      await eventually(async () => {
        const stats = (await (await fetch(`${core.api.url}/stats/xds`)).json()) as XdsStats;
        expect(stats.proxies[0]?.breakdown.total.complete).toBe(true);
      });

      const { page } = await ui.open(core, '#/sync');
      const row = page.getByRole('row').filter({ hasText: 'web-1' });
      await expect.poll(() => row.locator('.bar').getAttribute('title')).toMatch(/certificate issuance \d/);
      expect(await page.getByRole('list', { name: 'Phases' }).first().innerText()).toContain('certificate issuance');
      if (process.env.MESHDESK_SCREENSHOT_DIR) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, 'sync-timing-certificate.png') });

      await page.goto(page.url().replace(/#.*$/, '#/proxies/default.web-1/timeline'));
      await expect.poll(() => page.getByTestId('first-config').innerText()).toContain('certificate issuance');
      if (process.env.MESHDESK_SCREENSHOT_DIR) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, 'first-config-certificate.png') });
    } finally {
      proxy.close();
    }
  });
});
