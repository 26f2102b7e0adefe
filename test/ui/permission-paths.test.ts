// A cell of the permission matrix whose paths outnumber what `_permissions` lists (docs/limits.md):
// the panel says how many of them it shows.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_LISTED_PATHS } from '../../src/main/policies/meshtrafficpermission/permission-matrix.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { putResource } from '../support/put-resource.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

describe('Permission matrix, a cell with more paths than it lists', () => {
  it('lists the first paths and says how many there are', async () => {
    const core = await ui.core();
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } });
    // 12 echo Dataplanes, each with a tag of its own: 12 destination inbounds × 12 caller groups.
    for (let index = 0; index < 12; index++) await applyDataplane(core, backendDataplane(`echo-${index}`, 18100 + index, 'echo', 'default', { instance: `${index}` }));
    const { page } = await ui.open(core, '#/policies/permissions/default');
    const cell = page.locator('[data-cell="echo→echo"]');
    await cell.and(page.locator('[data-decision=denied]')).waitFor();
    await cell.click();
    const panel = page.getByTestId('permission-cell');
    await panel.getByTestId('listed-paths').getByText(`${MAX_LISTED_PATHS} of 144 paths (destination inbound × caller) are listed`).waitFor();
    expect(await panel.locator('.path').count()).toBe(MAX_LISTED_PATHS);
    if (process.env.MESHDESK_SCREENSHOT_DIR) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, 'permission-listed-paths.png') });
  });
});
