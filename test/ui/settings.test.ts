import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

async function settingsInForce(apiUrl: string): Promise<Record<string, unknown>> {
  return (await fetch(`${apiUrl}/settings`)).json() as Promise<Record<string, unknown>>;
}

describe('Settings view', () => {
  it('changing the cache expiration changes the setting in force', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/settings');
    const field = page.locator('[data-setting="store.cache.expirationTime"]');
    const input = field.getByRole('textbox');
    await eventually(async () => expect(await input.inputValue()).toBe('100ms'));

    await input.fill('250ms');
    await field.getByRole('button', { name: 'Apply' }).click();

    await field.getByText('✓ applied').waitFor();
    expect((await settingsInForce(core.api.url))['store.cache.expirationTime']).toBe('250ms');
    expect(core.settings.get('store.cache.expirationTime')).toBe(250);
    expect(await input.inputValue()).toBe('250ms');
  });

  it("shows the API's validation error at the field and changes nothing", async () => {
    const core = await ui.core();
    const { page, errors } = await ui.open(core, '#/settings');
    const field = page.locator('[data-setting="xds.nackBackoff"]');
    const input = field.getByRole('textbox');
    await eventually(async () => expect(await input.inputValue()).toBe('5s'));

    await input.fill('soon');
    await input.press('Enter');

    const error = field.getByRole('alert');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/duration/);
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(core.settings.get('xds.nackBackoff')).toBe(5000);
    // Chromium logs every 4xx answer to fetch; this one was the point of the test.
    expect(errors).toEqual([expect.stringContaining('status of 400 (Bad Request)')]);
    errors.splice(0);
  });

  it('applies an option with one click and shows changes made elsewhere live', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/settings');
    const strategy = page.locator('[data-setting="xds.postCreateStrategy"]');
    await strategy.getByRole('radio', { name: 'invalidate' }).click();
    await eventually(() => expect(core.settings.get('xds.postCreateStrategy')).toBe('invalidate'));

    core.settings.update({ 'xds.dataplaneDeregistrationDelay': '42s' });
    const input = page.locator('[data-setting="xds.dataplaneDeregistrationDelay"]').getByRole('textbox');
    await eventually(async () => expect(await input.inputValue()).toBe('42s'));
    expect(await strategy.getByRole('radio', { name: 'invalidate' }).getAttribute('aria-checked')).toBe('true');
  });

  it('says a port change needs a restart and keeps the port in force', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/settings');
    const field = page.locator('[data-setting="xds.port"]');
    const inForce = core.settings.get('xds.port');
    await field.getByText('restart needed').waitFor();
    const input = field.getByRole('textbox');
    await input.fill('15678');
    await field.getByRole('button', { name: 'Apply' }).click();
    // The test core's ports come from its start options, as from --ads-port: the saved value is for starts without it.
    await field.getByText(/started without it, meshdesk uses the saved 15678/).waitFor();
    expect(core.settings.get('xds.port')).toBe(inForce);
    expect((await settingsInForce(core.api.url))['xds.port']).toBe(inForce);
  });

  it('says where each value comes from, and never calls a port given by flag a pending save', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/settings');
    const apiPort = page.locator('[data-setting="apiServer.port"]');
    await apiPort.getByTestId('setting-source').getByText('source: command line (--api-port)').waitFor();
    await apiPort.getByText(/comes from the command line \(--api-port\) for this run; started without it, meshdesk uses the default 5681/).waitFor();
    expect(await apiPort.getByText(/stays in force until meshdesk restarts/).count()).toBe(0);
    // Nothing is saved for it: there is nothing to reset.
    expect(await apiPort.getByRole('button', { name: 'Reset' }).count()).toBe(0);
    await page.locator('[data-setting="store.cache.expirationTime"]').getByTestId('setting-source').getByText('source: saved').waitFor();
    await page.locator('[data-setting="xds.nackBackoff"]').getByTestId('setting-source').getByText('source: default').waitFor();
  });
});
