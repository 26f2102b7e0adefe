import { describe, expect, it, onTestFinished } from 'vitest';
import { startCore } from '../../src/main/core.js';
import { tempDir } from '../support/temp-dir.js';
import { withControlPlaneCert } from '../support/with-control-plane-cert.js';
import { focusedLabel, hashOf, themeOf } from './support/browser.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

describe('app shell', () => {
  it('loads the built renderer and every section, light and dark, with no console errors', async () => {
    const core = await ui.core();
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await ui.open(core, '#/proxies', { colorScheme });
      expect(await themeOf(page)).toBe(colorScheme);
      await page.getByTestId('connection-status').and(page.locator('[data-status=live]')).waitFor();
      const links = page.getByRole('navigation', { name: 'Sections' }).getByRole('link');
      expect(await links.count()).toBe(9);
      for (const link of await links.all()) {
        const section = (await link.getAttribute('href'))!.replace('#/', '');
        await link.click();
        await page.locator(`main[data-view="${section}"] h1`).waitFor();
      }
    }
    // useUi fails the test on any console error, page error or failed request.
  });

  it('switches sections with number keys and g-prefixed letters, and focuses search with /', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core);
    await page.locator('main[data-view=proxies] h1').waitFor();

    await page.keyboard.press('g');
    await page.keyboard.press('s');
    await page.locator('main[data-view=settings] h1').waitFor();
    await page.keyboard.press('2');
    await page.locator('main[data-view=cache] h1').waitFor();
    await page.keyboard.press('1');
    await page.locator('main[data-view=proxies] h1').waitFor();
    expect(await hashOf(page)).toBe('#/proxies');

    await page.keyboard.press('/');
    expect(await focusedLabel(page)).toBe('Search proxies');
    // Typing in a field is typing, not shortcuts.
    await page.keyboard.type('2');
    expect(await hashOf(page)).toBe('#/proxies');
  });

  it('remembers the theme chosen with the toggle across reloads', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/proxies', { colorScheme: 'light' });
    await page.getByRole('button', { name: 'Switch to dark theme' }).click();
    expect(await themeOf(page)).toBe('dark');
    await page.reload();
    await page.locator('main h1').waitFor();
    expect(await themeOf(page)).toBe('dark');
  });

  it('shows the core as offline when it stops', async () => {
    const core = await ui.core();
    const { page, errors } = await ui.open(core);
    await page.locator('[data-testid=connection-status][data-status=live]').waitFor();
    await core.api.close();
    await page.locator('[data-testid=connection-status][data-status=offline]').waitFor();
    // The page keeps retrying the lost core (event stream, lists) until it closes, and the browser
    // reports each refused request: losing the core is the point of this test.
    await page.close();
    errors.splice(0);
  });

  it('marks the whole page stale at once when the core stops, says since when, stops counting, and recovers', async () => {
    const dataDir = withControlPlaneCert(tempDir());
    const first = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    let firstRunning = true;
    onTestFinished(() => (firstRunning ? first.close() : undefined));
    ui.connect(first, {
      name: 'web-1',
      target: 'echo',
      register: { networking: { address: '127.0.0.1', inbound: [{ port: 19001, tags: { 'kuma.io/service': 'web' } }] } },
    });
    const { page, errors } = await ui.open(first);
    const notFound: string[] = [];
    page.on('response', (response) => void (response.status() === 404 && notFound.push(new URL(response.url()).pathname)));
    const row = page.locator('[role=row]', { hasText: 'web-1' });
    await row.getByText(/online/).waitFor();
    expect(await page.getByTestId('offline-banner').count()).toBe(0);

    const stoppedAt = new Date();
    await first.close();
    firstRunning = false;
    const banner = page.getByTestId('offline-banner');
    await banner.waitFor();
    const [, time] = /offline since (\d\d:\d\d:\d\d)/.exec(await banner.innerText()) ?? [];
    const seconds = (hms: string) => hms.split(':').reduce((sum, part) => sum * 60 + Number(part), 0);
    const stoppedAtLocal = seconds(`${stoppedAt.getHours()}:${stoppedAt.getMinutes()}:${stoppedAt.getSeconds()}`);
    const apart = Math.abs(seconds(time!) - stoppedAtLocal);
    expect(Math.min(apart, 86_400 - apart)).toBeLessThanOrEqual(5);
    expect(await banner.innerText()).toContain('data below is as of then');
    expect(await page.locator('main').getAttribute('data-stale')).toBe('true');

    // Nothing counts on as if it were live: the row's "since" stays as it was when the core went.
    const frozen = await row.innerText();
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(await row.innerText()).toBe(frozen);

    const again = await startCore({ dataDir, host: '127.0.0.1', apiPort: first.api.port, adsPort: 0 });
    onTestFinished(() => again.close());
    await page.locator('[data-testid=connection-status][data-status=live]').waitFor();
    await page.locator('main[data-stale=false]').waitFor();
    expect(await banner.count()).toBe(0);
    // Requests failed while no core listened; that outage was the point. The new core's timeline
    // starts empty: a row's first-config breakdown asked of it before the row shows the restart
    // answers 404 (the browser logs that), and only that may.
    expect(notFound.filter((path) => !path.endsWith('/_first-config'))).toEqual([]);
    const restartArtifact = (error: string) => error.includes('net::ERR_') || (notFound.length > 0 && error.includes('status of 404'));
    errors.splice(0, errors.length, ...errors.filter((error) => !restartArtifact(error)));
  });
});
