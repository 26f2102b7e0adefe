import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WEB_1_INBOUND_YAML } from '../support/dataplanes.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

describe('Resources view: export and import', () => {
  it('Export downloads the store as YAML for kumactl apply -f', async () => {
    const core = await ui.core();
    await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: WEB_1_INBOUND_YAML });
    const { page } = await ui.open(core, '#/resources');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export', exact: true }).click()]);

    expect(download.suggestedFilename()).toBe('meshdesk-export.yaml');
    expect(readFileSync(await download.path(), 'utf8')).toBe(await (await fetch(`${core.api.url}/export`)).text());
  });

  it('Import previews what would be created and updated, then Apply writes it; an invalid document is named and nothing is written', async () => {
    const core = await ui.core();
    await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: WEB_1_INBOUND_YAML });
    const { page, errors } = await ui.open(core, '#/resources');
    await page.getByRole('button', { name: 'Import…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import resources' });
    const apply = dialog.getByRole('button', { name: 'Apply', exact: true });

    // An invalid document: the error names it, and Apply stays off.
    await dialog.getByLabel('Resources YAML').fill('type: Mesh\nname: staging\n---\ntype: Dataplane\nmesh: staging\nname: api-1\nnetworking:\n  address: "::"\n');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await dialog.getByTestId('import-error').getByText('resource[1].networking.address').waitFor();
    expect(await apply.isDisabled()).toBe(true);

    // web-1 changed and a new mesh: refused until Overwrite is ticked, then previewed.
    const text = `type: Mesh\nname: staging\n---\n${WEB_1_INBOUND_YAML}labels:\n  team: web\n`;
    await dialog.getByLabel('Resources YAML').fill(text);
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await dialog.getByTestId('import-error').getByText('Resources already exist', { exact: false }).waitFor();
    await dialog.getByLabel('Overwrite resources that exist with other content').check();
    await dialog.getByRole('button', { name: 'Preview' }).click();
    await dialog.getByTestId('import-preview').getByText('Apply would do: 1 created · 1 updated').waitFor();
    expect(await page.locator('[data-import-action]').evaluateAll((rows) => rows.map((row) => Array.from(row.querySelectorAll('td'), (cell: { textContent: string | null }) => cell.textContent?.trim()).join(' ')))).toEqual([
      'Created Mesh staging',
      'Updated Dataplane default/web-1',
    ]);
    expect((await fetch(`${core.api.url}/meshes/staging`)).status).toBe(404);
    // Chromium logs the refused previews' answers.
    expect(errors).toEqual([expect.stringContaining('status of 400 (Bad Request)'), expect.stringContaining('status of 409 (Conflict)')]);
    errors.splice(0);

    await apply.click();
    await dialog.getByTestId('import-done').getByText('Imported: 1 created · 1 updated').waitFor();
    expect((await fetch(`${core.api.url}/meshes/staging`)).status).toBe(200);
    expect(await (await fetch(`${core.api.url}/meshes/default/dataplanes/web-1`)).json()).toMatchObject({ labels: { team: 'web' }, version: 2 });
    // The list follows live.
    await page.locator('[data-resource="Mesh::staging"]').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });
});
