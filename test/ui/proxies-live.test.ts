import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startCore } from '../../src/main/core.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';
import { withControlPlaneCert } from '../support/with-control-plane-cert.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

interface SyncRequest {
  open(method: string, url: string, async: false): void;
  send(): void;
  responseText: string;
}

describe('Proxies view, kept live', () => {
  it('shows the list before the event stream opens, then catches up on what changed before it did', async () => {
    const core = await ui.core();
    await applyDataplane(core, backendDataplane('before-1', 18000));
    const { page } = await ui.open(core);
    await page.locator('[role=row]', { hasText: 'before-1' }).waitFor();

    // Hold the event stream of the next page load: changes made meanwhile reach no listener.
    let openStream!: () => void;
    const streamHeld = new Promise<void>((resolve) => (openStream = resolve));
    await page.route('**/events', async (route) => {
      await streamHeld;
      await route.continue();
    });
    await page.reload();
    await page.locator('[role=row]', { hasText: 'before-1' }).waitFor();
    await page.locator('[data-testid=connection-status][data-status=connecting]').waitFor();

    await applyDataplane(core, backendDataplane('unannounced-1', 18001));
    openStream();

    await page.locator('[data-testid=connection-status][data-status=live]').waitFor();
    await page.locator('[role=row]', { hasText: 'unannounced-1' }).waitFor();
  });

  it('catches up on what changed while the core was unreachable', async () => {
    const dataDir = withControlPlaneCert(tempDir());
    const first = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    let firstRunning = true;
    onTestFinished(() => (firstRunning ? first.close() : undefined));
    const { page, errors } = await ui.open(first);
    await page.locator('[data-testid=connection-status][data-status=live]').waitFor();
    await page.getByText('No Dataplanes yet.').waitFor();

    await first.close();
    firstRunning = false;
    await page.locator('[data-testid=connection-status][data-status=offline]').waitFor();
    // Written by a core the page never reaches: no event of it can arrive.
    const writer = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    await applyDataplane(writer, backendDataplane('written-offline-1', 18000)).finally(() => writer.close());
    const again = await startCore({ dataDir, host: '127.0.0.1', apiPort: first.api.port, adsPort: 0 });
    onTestFinished(() => again.close());

    await page.locator('[role=row]', { hasText: 'written-offline-1' }).waitFor();
    // Requests failed while no core listened (the event stream's retries among them); that outage was the point.
    errors.splice(0, errors.length, ...errors.filter((error) => !error.includes('net::ERR_')));
  });

  it('reloads what it shows after the core dropped its event stream for falling behind', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core);
    await page.locator('[data-testid=connection-status][data-status=live]').waitFor();
    await page.getByText('No Dataplanes yet.').waitFor();

    // The page stops reading: its main thread spins (asking the API, synchronously, whether the
    // Dataplane below exists yet) while the core publishes far more than any buffer holds.
    const spun = page.evaluate(() => {
      const list = () => {
        // (This runs in the page; the Node test's types do not know the DOM.)
        const request = new (globalThis as unknown as { XMLHttpRequest: new () => SyncRequest }).XMLHttpRequest();
        request.open('GET', '/meshes/default/dataplanes', false);
        request.send();
        return request.responseText;
      };
      while (!list().includes('written-while-dropped')) {
        // spin
      }
    });
    const padding = 'x'.repeat(16 * 1024);
    await eventually(
      async () => {
        for (let index = 0; index < 64; index++) core.events.publish({ topic: 'settings.changed', changed: { 'test.padding': padding } });
        await nextTurn();
        expect(await core.metrics.eventStreamDropped.get()).toMatchObject({ values: [{ value: 1 }] });
      },
      { everyMs: 0, deadlineMs: 60_000 },
    );
    // Written after the drop: no event of it reaches the page, only its reload can show it.
    await applyDataplane(core, backendDataplane('written-while-dropped', 18000));
    await spun;

    await page.locator('[role=row]', { hasText: 'written-while-dropped' }).waitFor();
    await page.locator('[data-testid=connection-status][data-status=live]').waitFor();
  });
});
