import { describe, expect, it } from 'vitest';
import type { DemoStatus } from '../../src/shared/demo-types.js';
import { eventually } from '../support/eventually.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

describe('Start a demo mesh (Proxies view, empty state)', () => {
  it('starts the demo from the empty Proxies view, shows its proxies after their post-create wait and its gRPC calls, and stops it', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core);
    await page.getByTestId('demo-offer').waitFor();
    await page.getByRole('button', { name: 'Start a demo mesh' }).click();

    // Each sidecar registered from node metadata: its first config went through the post-create wait.
    const web = page.locator('[role=row]', { hasText: 'web-1' });
    await web.locator('[data-xds-state=ack]').first().waitFor();
    await web.getByText('sleep').waitFor();
    expect(await web.innerText()).toMatch(/demo\/[\s\S]*web-1[\s\S]*proxy/);
    for (const name of ['web-2', 'orders-1', 'orders-2', 'inventory-1', 'inventory-2', 'greeter-client', 'greeter-1', 'greeter-2']) {
      await page.locator('[role=row]', { hasText: name }).first().waitFor();
    }
    // The proxyless gRPC client's calls through the 90/10 split, live in the banner.
    const banner = page.getByTestId('demo-banner');
    await banner.getByText(/gRPC calls to greeter: [1-9]\d* v1/).waitFor();

    await banner.getByRole('button', { name: 'Stop demo' }).click();
    await banner.getByText('Demo mesh stopped').waitFor();
    expect(await banner.getByRole('button', { name: 'Start it again' }).isEnabled()).toBe(true);
    const status = (await (await fetch(`${core.api.url}/demo`)).json()) as DemoStatus;
    expect(status.state).toBe('stopped');
    await eventually(async () => expect((await fetch(`${core.api.url}/meshes/demo`)).status).toBe(404));
  });
});
