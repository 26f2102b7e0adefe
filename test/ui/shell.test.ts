import { describe, expect, it } from 'vitest';
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
      expect(await links.count()).toBe(6);
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
});
