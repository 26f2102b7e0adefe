import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core.js';
import type { MeshMtlsView } from '../../src/shared/mtls-types.js';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { applyDataplane, backendDataplane, tokenMetadata } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { putResource } from '../support/put-resource.js';
import { setEditorText, waitForEditorText } from './support/editor.js';
import { callerSpec } from './support/grpc-proxy.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

const MTLS = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };
const ECHO = backendDataplane('echo-1', 18090);

async function get<T>(core: Core, path: string): Promise<T> {
  return (await (await fetch(`${core.api.url}${path}`)).json()) as T;
}

/** frontend may call echo (a legacy `from` item with this action); nothing names frontend's own inbound. */
function frontendToEcho(core: Core, action: 'Allow' | 'Deny') {
  return putResource(core.api.url, '/meshes/default/meshtrafficpermissions/frontend-to-echo', {
    type: 'MeshTrafficPermission',
    mesh: 'default',
    name: 'frontend-to-echo',
    spec: { targetRef: { kind: 'MeshService', name: 'echo' }, from: [{ targetRef: { kind: 'MeshService', name: 'frontend' }, default: { action } }] },
  });
}

/** The default mesh with mTLS on: echo-1 an Envoy sidecar (a raw ADS client), frontend-1 a real grpc-js-xds client. */
async function strictMesh() {
  const core = await ui.core();
  await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: MTLS });
  await applyDataplane(core, ECHO);
  await frontendToEcho(core, 'Allow');
  ui.connect(core, { name: 'frontend-1', target: 'echo', register: callerSpec('frontend') });
  const echo = new RawAdsClient(core.xds.port, { id: 'default.echo-1', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(ECHO), ...tokenMetadata(core, 'echo-1') } });
  echo.send(LISTENER_TYPE_URL);
  await echo.next();
  return { core, close: () => echo.close() };
}

describe('Permission matrix', () => {
  it('shows each caller × destination decision with its policy and reason, the enforcing RBAC config on Enter, live', async () => {
    const { core, close } = await strictMesh();
    try {
      const { page } = await ui.open(core, '#/policies');
      // Reached from the Policies view's list, by keyboard.
      await page.getByTestId('permission-matrix-link').focus();
      await page.keyboard.press('Enter');
      const cell = (name: string) => page.locator(`[data-cell="${name}"]`);
      await cell('frontend→echo').and(page.locator('[data-decision=allowed]')).waitFor();
      await cell('echo→frontend').and(page.locator('[data-decision=denied]')).waitFor();
      // Not colour alone: an icon and a word.
      expect(await cell('frontend→echo').innerText()).toMatch(/✓\s*allowed/);
      expect(await cell('echo→frontend').innerText()).toMatch(/✕\s*denied/);
      expect(await page.locator('th[scope=col]').first().innerText()).toMatch(/caller ↓\s*destination →/);

      // One cell in the tab order; arrows move; focus names the policy item and the reason.
      await cell('echo→echo').focus();
      await page.keyboard.press('ArrowDown');
      expect(await page.locator(':focus').getAttribute('data-cell')).toBe('frontend→echo');
      const tip = page.getByTestId('permission-tip');
      await tip.getByText('MeshTrafficPermission frontend-to-echo · spec.from[0]').waitFor();
      await tip.getByText('action Allow for kuma.io/service=frontend').waitFor();

      // Enter: the RBAC filter enforcing it in echo-1's config.
      await page.keyboard.press('Enter');
      const panel = page.getByTestId('permission-cell');
      await panel.getByRole('heading', { name: 'frontend → echo' }).waitFor();
      const location = panel.getByTestId('rbac-location');
      await location.getByText(/default\.echo-1 › listener inbound:127\.0\.0\.1:18090 › filter_chains\[\d+\]\.filters\[\d+\]\.typed_config\.http_filters\[0\]/).waitFor();
      await waitForEditorText(panel.getByTestId('rbac-config'), 'spiffe://default/frontend');
      await panel.getByRole('radio', { name: 'JSON' }).click();
      await waitForEditorText(panel.getByTestId('rbac-config'), '"exact": "spiffe://default/frontend"');

      // Escape closes the details and gives the focus back to the cell.
      await cell('frontend→echo').focus();
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'detached' });
      expect(await page.locator(':focus').getAttribute('data-cell')).toBe('frontend→echo');

      // A proxyless gRPC destination: its xDS server listener's RBAC, deny all (nothing selects frontend).
      await cell('frontend→frontend').click();
      await location.getByText('default.frontend-1 › listener grpc/server?xds.resource.listening_address=127.0.0.1:19001').waitFor();
      await waitForEditorText(panel.getByTestId('rbac-config'), 'rules: {}');
      expect(await panel.getByTestId('rbac-missing').count()).toBe(0);

      // Live: the permission changes, the cell follows without a reload.
      await frontendToEcho(core, 'Deny');
      await cell('frontend→echo').and(page.locator('[data-decision=denied]')).waitFor();
    } finally {
      close();
    }
  });

  it('says nothing is enforced with mTLS off, each cell with what it will be once on, and shows a mesh without services', async () => {
    const core = await ui.core();
    await applyDataplane(core, ECHO);
    await putResource(core.api.url, '/meshes/empty', { type: 'Mesh', name: 'empty', mtls: MTLS });
    const { page } = await ui.open(core, '#/policies/permissions/default');

    await page.getByTestId('not-enforced').getByText('mTLS is off in mesh default').waitFor();
    const cell = page.locator('[data-cell="echo→echo"]');
    await cell.and(page.locator('[data-decision=not-enforced]')).waitFor();
    expect(await cell.innerText()).toMatch(/○\s*not enforced\s*on: denied/);
    await cell.hover();
    await page.getByTestId('permission-tip').getByText('no MeshTrafficPermission selects this inbound: mTLS denies all').waitFor();

    await page.getByLabel('Mesh', { exact: true }).selectOption('empty');
    await page.getByTestId('permissions-empty').getByText('No services in mesh empty.').waitFor();
  });
});

describe('Mesh editor: turning mTLS on', () => {
  const withMtls = (name: string) => `type: Mesh
name: ${name}
mtls:
  enabledBackend: ca-1
  backends:
    - name: ca-1
      type: builtin
`;

  it('warns before a mesh without MeshTrafficPermission turns mTLS on, and creates an allow-all one in one click', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/resources/mesh/default');
    await waitForEditorText(page, 'name: default');
    const warning = page.getByTestId('mtls-permission-warning');
    expect(await warning.count()).toBe(0);

    await setEditorText(page, withMtls('default'));
    await warning.getByText('Turning mTLS on without any MeshTrafficPermission denies all traffic between services').waitFor();
    await warning.getByRole('button', { name: 'Create allow-all MeshTrafficPermission' }).click();
    await page.getByTestId('mtls-permission-created').waitFor();
    // Created before the Mesh is applied: no call is ever denied.
    expect(await get(core, '/meshes/default/meshtrafficpermissions/allow-all-default')).toMatchObject({ spec: { targetRef: { kind: 'Mesh' }, from: [{ targetRef: { kind: 'Mesh' }, default: { action: 'Allow' } }] } });
    expect((await get<MeshMtlsView>(core, '/meshes/default/_mtls')).mtls).toBeNull();
    expect(await warning.count()).toBe(0);

    await page.keyboard.press('ControlOrMeta+S');
    await eventually(async () => expect((await get<MeshMtlsView>(core, '/meshes/default/_mtls')).mtls).not.toBeNull());
  });

  it('lets the user proceed without one: a new mesh with mTLS is created as written', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/resources/new/mesh');
    await page.getByTestId('editor-title').getByText('New Mesh').waitFor();
    await setEditorText(page, withMtls('secure'));
    const warning = page.getByTestId('mtls-permission-warning');
    await warning.getByRole('button', { name: 'Apply, then create allow-all MeshTrafficPermission' }).waitFor();

    await page.keyboard.press('ControlOrMeta+S');
    await page.getByTestId('editor-notice').getByText('Created Mesh secure').waitFor();
    expect(await warning.count()).toBe(0);
    expect((await get<MeshMtlsView>(core, '/meshes/secure/_mtls')).mtls).toMatchObject({ backend: 'ca-1', mode: 'STRICT' });
    expect((await get<{ total: number }>(core, '/meshes/secure/meshtrafficpermissions')).total).toBe(0);
  });
});
