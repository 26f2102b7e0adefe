import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, startCore } from '../../src/main/core.js';
import type { ListBody, SnapshotSummary } from '../../src/shared/api-types.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { startEchoServer } from '../support/echo-server.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';
import { withControlPlaneCert } from '../support/with-control-plane-cert.js';
import { editorText, setEditorText } from './support/editor.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

// Chromium, a core and real xDS clients on a shared 2-core machine: a bound for hung tests, not a timing assertion.
const ROOM = 90_000;

const WEB_9 = `type: Dataplane
mesh: default
name: web-9
networking:
  address: 127.0.0.1
  inbound:
    - port: 18080
      tags:
        kuma.io/service: web
`;

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

describe('Resources view', () => {
  it('applies a Dataplane written in the editor with Ctrl+S, and lists it live', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/resources');
    await page.getByRole('button', { name: 'New Dataplane', exact: true }).click();
    await page.getByTestId('editor-title').getByText('New Dataplane').waitFor();

    await setEditorText(page, WEB_9);
    await page.keyboard.press('ControlOrMeta+S');

    await page.getByTestId('editor-notice').getByText('Created Dataplane default/web-9: version 1').waitFor();
    await page.locator('[data-resource="Dataplane:default:web-9"]').waitFor();
    expect(new URL(page.url()).hash).toBe('#/resources/dataplane/default/web-9');
    const stored = await getJson<{ networking: unknown }>(`${core.api.url}/meshes/default/dataplanes/web-9`);
    expect(stored.networking).toMatchObject({ inbound: [{ port: 18080, tags: { 'kuma.io/service': 'web' } }] });
    // The editor now holds the stored resource, with the version the next apply sends back.
    expect(await editorText(page)).toContain('version: 1');

    // Escape reverts the edits, and a second Escape closes the editor.
    await page.locator('.cm-line', { hasText: 'name: web-9' }).click();
    await page.keyboard.press('End');
    await page.keyboard.type('0');
    await page.getByText('edited', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await eventually(async () => expect(await editorText(page)).toContain('name: web-9\n'));
    expect(await page.getByText('edited', { exact: true }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByText('Select a Mesh or Dataplane').waitFor();
    expect(new URL(page.url()).hash).toBe('#/resources');
  }, ROOM);

  it('lists resources created elsewhere without a reload, and filters Dataplanes by mesh', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/resources');
    await page.getByTestId('resource-counts').getByText('1 mesh · 0 dataplanes').waitFor();

    await fetch(`${core.api.url}/meshes/payments`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'payments' }) });
    await applyDataplane(core, backendDataplane('echo-1', 18001));
    await applyDataplane(core, backendDataplane('ledger-1', 18002, 'ledger', 'payments'));

    await page.getByTestId('resource-counts').getByText('2 meshes · 2 dataplanes').waitFor();
    await page.getByLabel('Mesh filter').selectOption('payments');
    const dataplanes = page.locator('[data-resource^="Dataplane:"]');
    await eventually(async () => expect(await dataplanes.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-resource')))).toEqual(['Dataplane:payments:ledger-1']));
    expect(await page.locator('[data-resource="Mesh::payments"]').innerText()).toContain('1 dataplane');
  }, ROOM);

  it("lists the mesh's policies and edits one in the YAML editor, Kuma's errors at their lines", async () => {
    const core = await ui.core();
    const { page, errors } = await ui.open(core, '#/resources');
    // The default mesh's initial policies.
    await page.getByTestId('resource-counts').getByText('1 mesh · 0 dataplanes · 4 policies').waitFor();
    await page.locator('[data-resource="MeshRetry:default:mesh-retry-all-default"]').click();
    await eventually(async () => expect(await editorText(page)).toContain('type: MeshRetry'));
    expect(new URL(page.url()).hash).toBe('#/resources/meshretry/default/mesh-retry-all-default');
    await page.getByTestId('editor-title').getByText('MeshRetry default/mesh-retry-all-default').waitFor();

    const retry = (kind: string) => `type: MeshRetry
mesh: default
name: mesh-retry-all-default
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: ${kind}
      default:
        tcp:
          maxConnectAttempt: 3
version: 1
`;
    await setEditorText(page, retry('MeshSubset'));
    await page.keyboard.press('ControlOrMeta+S');
    await page.locator('.cm-line', { hasText: 'kind: MeshSubset' }).locator('.cm-lintRange-error').first().waitFor();
    expect(await page.getByTestId('violations').locator('[data-line="9"]').innerText()).toMatch(/spec\.to\[0\]\.targetRef\.kind\s+value 'MeshSubset' is not supported/);
    expect(errors).toEqual([expect.stringContaining('status of 400 (Bad Request)')]);
    errors.splice(0);

    await setEditorText(page, retry('Mesh'));
    await page.keyboard.press('ControlOrMeta+S');
    await eventually(async () => expect(await editorText(page)).toContain('version: 2'));
    const stored = await getJson<{ spec: unknown }>(`${core.api.url}/meshes/default/meshretries/mesh-retry-all-default`);
    expect(stored.spec).toEqual({ targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: { tcp: { maxConnectAttempt: 3 } } }] });
  }, ROOM);

  it("shows the API's validation errors at their fields' lines and stores nothing", async () => {
    const core = await ui.core();
    const { page, errors } = await ui.open(core, '#/resources/new/dataplane');
    await page.locator('.cm-content').waitFor();
    const invalid = WEB_9.replace('port: 18080', 'port: 70000').replace('kuma.io/service: web', 'team: web');

    await setEditorText(page, invalid);
    await page.getByRole('button', { name: /^Apply/ }).click();

    // Marked in the editor, on the line of the field…
    await page.locator('.cm-line', { hasText: 'port: 70000' }).locator('.cm-lintRange-error').first().waitFor();
    expect(await page.locator('.cm-line', { hasText: 'address:' }).locator('.cm-lintRange-error').count()).toBe(0);
    // …and listed under it, with the line.
    const violations = page.getByTestId('violations');
    expect(await violations.locator('[data-line="7"]').innerText()).toMatch(/networking\.inbound\[0\]\.port\s+port must be in the range \[1, 65535\]/);
    expect(await violations.locator('[data-line="8"]').innerText()).toMatch(/networking\.inbound\[0\]\.tags\["kuma\.io\/service"\]\s+tag has to exist/);
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/web-9`)).status).toBe(404);

    // Clicking an error moves the cursor to its line.
    await violations.locator('[data-line="8"]').click();
    expect(await page.locator('.cm-activeLine').innerText()).toContain('tags:');
    expect(errors).toEqual([expect.stringContaining('status of 400 (Bad Request)')]);
    errors.splice(0);
  }, ROOM);

  it('guards an edit by the version loaded: a conflict shows the stored text against the edits, to reload or overwrite', async () => {
    const core = await ui.core();
    await applyDataplane(core, backendDataplane('echo-1', 18001));
    const { page, errors } = await ui.open(core, '#/resources/dataplane/default/echo-1');
    await eventually(async () => expect(await editorText(page)).toContain('version: 1'));

    // The version travels with the edit even when its line is gone from the text.
    await setEditorText(page, (await editorText(page)).replace('port: 18001', 'port: 18002').replace(/^version: 1\n/m, ''));
    await applyDataplane(core, backendDataplane('echo-1', 18003));
    await page.getByText('Changed elsewhere (now version 2)').waitFor();
    await page.keyboard.press('ControlOrMeta+S');

    const conflict = page.getByTestId('conflict');
    await conflict.getByText('you edited version 1, version 2 is stored now').waitFor();
    const diff = page.getByTestId('conflict-diff');
    expect(await diff.locator('[data-kind=stored]').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('port: 18003')]));
    expect(await diff.locator('[data-kind=yours]').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('port: 18002')]));
    expect((await getJson<{ version: number }>(`${core.api.url}/meshes/default/dataplanes/echo-1`)).version).toBe(2);

    await conflict.getByRole('button', { name: 'Reload (drop my edits)' }).click();
    await eventually(async () => expect(await editorText(page)).toMatch(/version: 2[\s\S]*port: 18003/));
    expect(await page.getByTestId('conflict').count()).toBe(0);

    // Again, and this time keep the edits.
    await setEditorText(page, (await editorText(page)).replace('port: 18003', 'port: 18002'));
    await applyDataplane(core, backendDataplane('echo-1', 18004));
    await page.keyboard.press('ControlOrMeta+S');
    await conflict.getByRole('button', { name: 'Overwrite with mine' }).click();
    await page.getByTestId('editor-notice').getByText('Applied Dataplane default/echo-1: version 4').waitFor();
    expect(await getJson(`${core.api.url}/meshes/default/dataplanes/echo-1`)).toMatchObject({ version: 4, networking: { inbound: [{ port: 18002 }] } });
    expect(errors).toEqual([expect.stringContaining('status of 409 (Conflict)'), expect.stringContaining('status of 409 (Conflict)')]);
    errors.splice(0);
  }, ROOM);

  it('never replaces with New, asks before taking over a proxy-registered Dataplane, and names a port another Dataplane uses', async () => {
    const core = await ui.core();
    ui.connect(core, {
      name: 'backend-1',
      target: 'web',
      register: { networking: { address: '127.0.0.1', inbound: [{ port: 18080, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'grpc' } }] } },
    });
    const live = `${core.api.url}/meshes/default/dataplanes/backend-1`;
    const registered = await eventually(() => getJson<{ version: number; labels: Record<string, string> }>(live));
    const { page, errors } = await ui.open(core, '#/resources');
    await page.locator('[data-resource="Dataplane:default:backend-1"]').waitFor();

    // The template takes a free name, a service nobody serves and a free port…
    await page.getByRole('button', { name: 'New Dataplane', exact: true }).click();
    await eventually(async () => expect(await editorText(page)).toMatch(/name: backend-2[\s\S]*port: 18081[\s\S]*kuma.io\/service: backend-2\n/));
    // …and naming the live one instead is refused: it stays as its proxy registered it.
    await setEditorText(page, (await editorText(page)).replace('name: backend-2', 'name: backend-1'));
    await page.keyboard.press('ControlOrMeta+S');
    await page.getByTestId('editor-error').getByText('Dataplane default/backend-1 already exists: a new resource never replaces one').waitFor();
    expect(await getJson(live)).toEqual(registered);

    // A port another Dataplane listens on at the same address is named at its line, with the other Dataplane.
    await setEditorText(page, (await editorText(page)).replace('name: backend-1', 'name: backend-2').replace('port: 18081', 'port: 18080'));
    await page.keyboard.press('ControlOrMeta+S');
    const violations = page.getByTestId('violations');
    await violations.getByText('127.0.0.1:18080 is already used by networking.inbound[0] of Dataplane "backend-1"').waitFor();
    expect(await violations.locator('[data-line="7"]').count()).toBe(1);
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/backend-2`)).status).toBe(404);

    // Editing the proxy's own Dataplane asks first; taking it over makes it the API's.
    await page.locator('[data-resource="Dataplane:default:backend-1"]').click();
    await eventually(async () => expect(await editorText(page)).toContain('meshdesk.io/origin: proxy'));
    await setEditorText(page, (await editorText(page)).replace('kuma.io/protocol: grpc', 'kuma.io/protocol: http'));
    await page.getByTestId('proxy-registered').waitFor();
    await page.keyboard.press('ControlOrMeta+S');
    const takeOver = page.getByTestId('take-over');
    await takeOver.getByText('was registered by its proxy').waitFor();
    expect(await getJson(live)).toEqual(registered);
    await takeOver.getByRole('button', { name: 'Take it over and apply' }).click();
    await page.getByTestId('editor-notice').getByText(`Applied Dataplane default/backend-1: version ${registered.version + 1}`).waitFor();
    const taken = await getJson<{ labels?: Record<string, string> }>(live);
    // The proxy's origin label is gone; what is left are the labels Kuma computes on every write.
    expect(taken.labels).toEqual({
      'kuma.io/env': 'universal',
      'kuma.io/mesh': 'default',
      'kuma.io/origin': 'zone',
      'kuma.io/proxy-type': 'sidecar',
      'kuma.io/zone': 'default',
    });
    expect(errors.filter((error) => !/status of (409|400)/.test(error))).toEqual([]);
    errors.splice(0);
  }, ROOM);

  it("deletes after a confirmation, and shows the API's refusal to delete a mesh with Dataplanes", async () => {
    const core = await ui.core();
    await applyDataplane(core, backendDataplane('echo-1', 18001));
    const { page, errors } = await ui.open(core, '#/resources/mesh/default');
    await page.getByTestId('editor-title').getByText('Mesh default').waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('editor-error').getByText(/Could not delete Mesh default: .*still has 1 dataplane \(echo-1\)/).waitFor();
    expect((await fetch(`${core.api.url}/meshes/default`)).status).toBe(200);
    errors.splice(0); // the 409 answer, logged by Chromium

    await page.locator('[data-resource="Dataplane:default:echo-1"]').click();
    await page.getByRole('button', { name: 'Delete' }).click();
    // Escape cancels the confirmation; nothing is deleted.
    await page.keyboard.press('Escape');
    expect(await page.getByRole('alertdialog').count()).toBe(0);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();

    await page.getByTestId('editor-notice').getByText('Deleted Dataplane default/echo-1').waitFor();
    await eventually(async () => expect(await page.locator('[data-resource="Dataplane:default:echo-1"]').count()).toBe(0));
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/echo-1`)).status).toBe(404);
  }, ROOM);

  it("gives a connected proxy a new config version when its backend's Dataplane is changed here", async () => {
    const core = await ui.core();
    const backend = await startEchoServer('echo-1');
    try {
      await applyDataplane(core, backendDataplane('echo-1', backend.port));
      ui.connect(core, {
        name: 'frontend-1',
        target: 'echo',
        register: { networking: { address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }] } },
      });
      const historyUrl = `${core.api.url}/meshes/default/dataplanes/frontend-1/_history`;
      const before = await eventually(async () => {
        const history = await getJson<ListBody<SnapshotSummary>>(historyUrl);
        expect(history.total).toBeGreaterThan(0);
        return history;
      });

      const { page } = await ui.open(core, '#/resources/dataplane/default/echo-1');
      await eventually(async () => expect(await editorText(page)).toContain(`port: ${backend.port}`));
      await setEditorText(page, (await editorText(page)).replace(`port: ${backend.port}`, 'port: 18999'));
      await page.keyboard.press('ControlOrMeta+S');
      await page.getByTestId('editor-notice').getByText('version 2').waitFor();

      const after = await eventually(async () => {
        const history = await getJson<ListBody<SnapshotSummary>>(historyUrl);
        expect(history.total).toBe(before.total + 1);
        return history;
      });
      // Newest first: the endpoints changed (the backend's port), nothing else.
      expect(after.items[0]!.changedTypes).toEqual(['type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment']);
    } finally {
      await backend.stop();
    }
  }, ROOM);
});

describe('Resources view with a broken stored row', () => {
  it('lists the row as a warning with its key and reason, and the status bar says storage has a problem', async () => {
    const dataDir = withControlPlaneCert(tempDir());
    const before = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    await applyDataplane(before, backendDataplane('torn-1', 18080));
    await applyDataplane(before, backendDataplane('backend-1', 18081));
    await before.close();
    // What a stray write could leave while meshdesk was stopped: a row whose JSON does not parse.
    const other = new Database(join(dataDir, DATABASE_FILE));
    other.prepare("UPDATE resources SET spec = '{\"networking\": {' WHERE name = 'torn-1'").run();
    other.close();
    const core = await ui.core(dataDir);

    const { page } = await ui.open(core, '#/resources');

    const row = page.getByTestId('broken-rows').locator('[data-broken-row="Dataplane:default:torn-1"]');
    await row.getByText('stored JSON does not parse').waitFor();
    await page.locator('[data-resource="Dataplane:default:backend-1"]').waitFor();
    expect(await page.locator('[data-resource="Dataplane:default:torn-1"]').count()).toBe(0);
    await page.getByTestId('storage-status').getByText('Storage: 1 broken row').waitFor();
    if (process.env.MESHDESK_SCREENSHOT_DIR) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, 'broken-rows.png') });
  }, ROOM);
});
