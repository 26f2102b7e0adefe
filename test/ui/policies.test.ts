import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core.js';
import type { ConfigDump } from '../../src/shared/api-types.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { putResource } from '../support/put-resource.js';
import { editorText, setEditorText, waitForEditorText } from './support/editor.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

/** A MeshTimeout for frontend's calls to echo; `requestTimeout` is on line 15. */
const timeout = (requestTimeout: string) => `type: MeshTimeout
mesh: default
name: timeout-echo
spec:
  targetRef:
    kind: MeshSubset
    tags:
      kuma.io/service: frontend
  to:
    - targetRef:
        kind: MeshService
        name: echo
      default:
        http:
          requestTimeout: ${requestTimeout}
`;

/** A core with echo-1 served by a real echo server and frontend-1, a real grpc-js-xds proxy calling it. */
async function meshWithProxy(): Promise<Core> {
  const core = await ui.core();
  await ui.frontendCallingEcho(core);
  return core;
}

async function configDump(url: string): Promise<string> {
  const response = await fetch(`${url}/meshes/default/dataplanes/frontend-1/xds`);
  return JSON.stringify((await response.json()) as ConfigDump);
}

describe('Policies view', () => {
  it('lists policies by type, creates one from the editor with its validation error at its line, and edits it', async () => {
    const core = await ui.core();
    const { page, errors } = await ui.open(core, '#/policies');
    // A new mesh gets Kuma's initial policies.
    await page.locator('[data-policy-type=MeshTimeout] .count', { hasText: '2' }).waitFor();
    await page.locator('[data-policy-type=MeshTimeout]').click();
    await page.locator('[data-policy="default/mesh-timeout-all-default"]').getByText('Mesh', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'New MeshTimeout' }).click();
    await page.getByTestId('editor-title').getByText('New MeshTimeout').waitFor();
    await setEditorText(page, timeout('soon'));
    await page.keyboard.press('ControlOrMeta+S');

    // Kuma's message for the field, at the line that holds it.
    const violation = page.getByTestId('violations').locator('[data-line="15"]');
    await violation.getByText('spec.to[0].default.http.requestTimeout').waitFor();
    expect((await editorText(page)).match(/requestTimeout: soon/g)).toHaveLength(1);
    expect(errors).toEqual([expect.stringContaining('status of 400 (Bad Request)')]);
    errors.splice(0);

    await setEditorText(page, timeout('7s'));
    await page.keyboard.press('ControlOrMeta+S');
    await page.getByTestId('editor-notice').getByText('Created MeshTimeout default/timeout-echo: version 1').waitFor();
    await page.locator('[data-policy="default/timeout-echo"]').getByText('MeshSubset kuma.io/service=frontend').waitFor();
    expect(new URL(page.url()).hash).toBe('#/policies/MeshTimeout/default/timeout-echo');

    await page.locator('.cm-line', { hasText: 'requestTimeout: 7s' }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('9s');
    await page.getByRole('button', { name: /^Apply/ }).click();
    await page.getByTestId('editor-notice').getByText('Applied MeshTimeout default/timeout-echo: version 2').waitFor();
    const stored = (await (await fetch(`${core.api.url}/meshes/default/meshtimeouts/timeout-echo`)).json()) as { spec: unknown };
    expect(stored.spec).toMatchObject({ to: [{ default: { http: { requestTimeout: '9s' } } }] });
  });

  it("previews the xDS diff a MeshTimeout change causes on a chosen proxy, then applying it changes the proxy's config", async () => {
    const core = await meshWithProxy();
    const put = await fetch(`${core.api.url}/meshes/default/meshtimeouts/timeout-echo`, { method: 'PUT', body: timeout('7s') });
    expect(put.status).toBe(201);
    await eventually(async () => expect(await configDump(core.api.url)).toContain('"max_stream_duration":"7s"'));
    const { page } = await ui.open(core, '#/policies/MeshTimeout/default/timeout-echo');
    await page.getByTestId('affected-proxies').getByRole('link', { name: 'default.frontend-1' }).waitFor();

    await page.locator('.cm-line', { hasText: 'requestTimeout: 7s' }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('3s');
    await page.getByLabel('Proxy to preview on').selectOption('frontend-1');
    await page.getByRole('button', { name: 'Preview change' }).click();

    await page.getByTestId('preview-summary').getByText('would change 1 resource of default.frontend-1 (proxyless gRPC)').waitFor();
    const change = page.locator('[data-diff="rds/echo"] [data-path="virtual_hosts[0].routes[0].route.max_stream_duration.max_stream_duration"]');
    await change.locator('.old', { hasText: '"7s"' }).waitFor();
    await change.locator('.new', { hasText: '"3s"' }).waitFor();
    // A preview writes nothing.
    expect(await configDump(core.api.url)).toContain('"max_stream_duration":"7s"');

    await page.keyboard.press('ControlOrMeta+S');
    await page.getByTestId('editor-notice').getByText('Applied MeshTimeout default/timeout-echo: version 2').waitFor();
    await eventually(async () => expect(await configDump(core.api.url)).toContain('"max_stream_duration":"3s"'));

    // The History tab names the change behind the new version.
    await page.goto(new URL('#/proxies/default.frontend-1/history', page.url()).href);
    await page.locator('[data-snapshot]').first().locator('[data-policy-change]', { hasText: 'MeshTimeout timeout-echo v1 → v2' }).waitFor();
  });
});

describe('Policies view with several meshes', () => {
  it('shows the policies of the mesh the user chooses, keeps the choice in Resources, and starts new policies in it', async () => {
    const core = await ui.core();
    const put = await fetch(`${core.api.url}/meshes/payments`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'payments' }) });
    expect(put.status).toBe(201);
    const { page } = await ui.open(core, '#/policies/MeshTimeout');
    const rows = page.locator('[data-policy]');
    const listed = () => rows.evaluateAll((each) => each.map((row) => row.getAttribute('data-policy')));
    // Both meshes' initial MeshTimeouts.
    await page.locator('[data-policy-type=MeshTimeout] .count', { hasText: '4' }).waitFor();

    await page.getByLabel('Mesh filter').selectOption('payments');
    await page.locator('[data-policy-type=MeshTimeout] .count', { hasText: '2' }).waitFor();
    await eventually(async () => expect((await listed()).every((key) => key?.startsWith('payments/'))).toBe(true));
    expect(await listed()).toHaveLength(2);
    await page.getByTestId('policy-counts').getByText(/policies in payments/).waitFor();

    // One choice for both views.
    await page.goto(new URL('#/resources', page.url()).href);
    expect(await page.getByLabel('Mesh filter').inputValue()).toBe('payments');
    await page.goto(new URL('#/policies/MeshTimeout', page.url()).href);
    expect(await page.getByLabel('Mesh filter').inputValue()).toBe('payments');

    await page.getByRole('button', { name: 'New MeshTimeout' }).click();
    await waitForEditorText(page, 'mesh: payments');

    await page.getByLabel('Mesh filter').selectOption('');
    await page.locator('[data-policy-type=MeshTimeout] .count', { hasText: '4' }).waitFor();
  });
});

describe('Proxy detail and policies', () => {
  it("shows the proxy's matched policies and rules, linking to each policy", async () => {
    const core = await meshWithProxy();
    const { page } = await ui.open(core, '#/proxies/default.frontend-1/policies');
    await page.locator('[data-matched-policy="MeshTimeout/mesh-timeout-all-default"]').waitFor();
    const rules = page.locator('[data-rules-type=MeshTimeout]');
    const outbound = rules.locator('[data-rule=to]').first();
    await outbound.getByText('every destination').waitFor();
    await outbound.getByText('requestTimeout: 15s').waitFor();
    await rules.locator('[data-rule=inbound]').first().getByText('all traffic').waitFor();

    await outbound.getByRole('link', { name: 'mesh-timeout-all-default' }).click();
    await page.getByTestId('editor-title').getByText('MeshTimeout default/mesh-timeout-all-default').waitFor();
    expect(new URL(page.url()).hash).toBe('#/policies/MeshTimeout/default/mesh-timeout-all-default');
  });

  it('marks each Config tree field a policy set, and its tooltip names the policy item', async () => {
    const core = await meshWithProxy();
    const { page } = await ui.open(core, '#/proxies/default.frontend-1/config');
    const mark = page.locator('[data-resource="rds/echo"] [data-policy-mark="MeshTimeout/mesh-timeout-all-default"]');
    await mark.waitFor();
    const tooltip = page.getByRole('tooltip', { name: /Set by MeshTimeout/ });
    expect(await tooltip.count()).toBe(0);

    await mark.focus();
    await tooltip.getByText('Set by MeshTimeout mesh-timeout-all-default').waitFor();
    await tooltip.getByText('virtual_hosts[0].routes[0].route.max_stream_duration.max_stream_duration').waitFor();
    await tooltip.getByText('spec.to[0]').waitFor();
  });
});

describe('Policy preview', () => {
  it('starts on a proxy the open policy selects, policy after policy, and keeps it when the mesh changes', async () => {
    const core = await ui.core();
    // alpha-1 comes first in the mesh's list of Dataplanes; each policy selects another one.
    for (const [name, port] of [['alpha-1', 18301], ['beta-1', 18302], ['gamma-1', 18303]] as const) {
      await applyDataplane(core, backendDataplane(name, port, name.replace(/-1$/, '')));
    }
    for (const service of ['beta', 'gamma']) {
      await putResource(core.api.url, `/meshes/default/meshtimeouts/timeout-${service}`, {
        type: 'MeshTimeout',
        mesh: 'default',
        name: `timeout-${service}`,
        spec: { targetRef: { kind: 'MeshService', name: service }, from: [{ targetRef: { kind: 'Mesh' }, default: { idleTimeout: '20s' } }] },
      });
    }
    // Every proxy the preview control offers as its choice from the moment the page loads, frame by frame.
    const { page } = await ui.open(core, '#/policies/MeshTimeout/default/timeout-beta');
    await page.context().addInitScript(`(() => {
      window.previewChoices = [];
      const record = () => {
        const value = document.querySelector('select[aria-label="Proxy to preview on"]')?.value;
        if (value && window.previewChoices.at(-1) !== value) window.previewChoices.push(value);
        requestAnimationFrame(record);
      };
      requestAnimationFrame(record);
    })()`);
    await page.reload();
    const proxy = page.getByLabel('Proxy to preview on');
    await page.getByTestId('affected-proxies').getByText('default.beta-1').waitFor();
    await eventually(async () => expect(await proxy.inputValue()).toBe('beta-1'));
    // A write elsewhere refreshes the policies and what they select: the choice stays.
    await applyDataplane(core, backendDataplane('delta-1', 18304, 'delta'));
    await eventually(async () => expect(await proxy.locator('option').count()).toBe(4));
    await page.locator('[data-policy="default/timeout-gamma"] [data-affected-count]', { hasText: '1' }).waitFor();
    expect(await page.evaluate('window.previewChoices')).toEqual(['beta-1']);

    // Another policy: its own proxy, not the one the last policy started on.
    await page.locator('[data-policy="default/timeout-gamma"] a').click();
    await page.getByTestId('affected-proxies').getByText('default.gamma-1').waitFor();
    await eventually(async () => expect(await proxy.inputValue()).toBe('gamma-1'));
    expect(await page.evaluate('window.previewChoices')).toEqual(['beta-1', 'gamma-1']);
    await page.getByRole('button', { name: 'Preview change' }).click();
    expect(await page.getByTestId('preview-summary').innerText()).toContain('default.gamma-1');
  });
});
