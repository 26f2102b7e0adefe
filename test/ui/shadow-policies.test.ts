// Shadow policies (`kuma.io/effect: shadow`) and the API's policy warnings in the UI, in headless
// Chromium against a real core: the badge with its reason where policies are listed, what a shadow
// policy would do on a proxy's Policies tab and in the preview, and the editor's warnings before and
// after Apply.
import { describe, expect, it } from 'vitest';
import { SHADOW_REASON } from '../../src/shared/policy-effect.js';
import { BACKEND_1, WEB_1, applyDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { setEditorText } from './support/editor.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

// Named to sort before the mesh's mesh-timeout-all-default, so that it merges last and wins (Kuma's SortByTargetRef).
const SHADOW_TIMEOUT = `type: MeshTimeout
mesh: default
name: backend-timeout
labels:
  kuma.io/effect: shadow
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: backend
      default:
        http:
          requestTimeout: 7s
`;

async function meshWithShadowPolicy() {
  const core = await ui.core();
  await applyDataplane(core, WEB_1);
  await applyDataplane(core, BACKEND_1);
  const put = await fetch(`${core.api.url}/meshes/default/meshtimeouts/backend-timeout`, { method: 'PUT', body: SHADOW_TIMEOUT });
  expect(put.status).toBe(201);
  return core;
}

describe('shadow policies in the UI', () => {
  it('badges a shadow policy in the list with its reason, says so in the editor and previews what it would do were it live', async () => {
    const core = await meshWithShadowPolicy();
    const { page } = await ui.open(core, '#/policies/MeshTimeout');
    const row = page.locator('[data-policy="default/backend-timeout"]');
    await row.getByTestId('shadow-badge').waitFor();
    expect(await row.locator('.pill.shadow').getAttribute('title')).toBe(`Shadow policy: ${SHADOW_REASON}`);
    expect(await page.locator('[data-policy="default/mesh-timeout-all-default"]').getByTestId('shadow-badge').count()).toBe(0);

    await row.getByRole('link', { name: 'backend-timeout' }).click();
    await page.getByTestId('shadow-notice').getByTestId('shadow-reason').getByText(SHADOW_REASON).waitFor();
    await page.getByRole('heading', { name: /Would affect, were it live/ }).waitFor();
    await page.getByTestId('affected-proxies').getByRole('link', { name: 'default.web-1' }).waitFor();

    await page.getByRole('combobox', { name: 'Proxy to preview on' }).selectOption('web-1');
    await page.getByRole('button', { name: 'Preview change' }).click();
    await page.getByTestId('preview-summary').getByText(/Applying it changes nothing: it is a shadow policy\. Were it live, it would change \d+ resources? of default\.web-1/).waitFor();

    // Resources lists it badged too.
    const resources = await ui.open(core, '#/resources');
    await resources.page.locator('[data-resource="MeshTimeout:default:backend-timeout"]').getByTestId('shadow-badge').waitFor();
    expect(await resources.page.locator('[data-resource="MeshTimeout:default:mesh-timeout-all-default"]').getByTestId('shadow-badge').count()).toBe(0);
  });

  it("shows on a proxy's Policies tab which shadow policies would select it, and their rules on request", async () => {
    const core = await ui.core();
    await ui.frontendCallingEcho(core);
    const put = await fetch(`${core.api.url}/meshes/default/meshtimeouts/echo-timeout`, {
      method: 'PUT',
      body: SHADOW_TIMEOUT.replace('name: backend-timeout', 'name: echo-timeout').replace('name: backend', 'name: echo'),
    });
    expect(put.status).toBe(201);
    const { page } = await ui.open(core, '#/proxies/default.frontend-1/policies');
    const shadow = page.getByTestId('shadow-policies');
    await shadow.getByRole('link', { name: 'MeshTimeout echo-timeout' }).waitFor();
    // Not among the policies that apply.
    await page.locator('[data-matched-policy="MeshTimeout/mesh-timeout-all-default"]').waitFor();
    expect(await page.locator('[data-matched-policy="MeshTimeout/echo-timeout"]').count()).toBe(0);

    await shadow.getByTestId('show-shadow').check();
    await page.locator('[data-matched-policy="MeshTimeout/echo-timeout"]').waitFor();
    await page.locator('[data-rules-type=MeshTimeout] .rule', { hasText: 'requestTimeout: 7s' }).getByTestId('shadow-badge').waitFor();
  });
});

describe("the policy editor's warnings", () => {
  it('warns before Apply of a to item that names no service, and says the PUT answered the same', async () => {
    const core = await ui.core();
    await applyDataplane(core, WEB_1);
    const { page } = await ui.open(core, '#/policies/new/MeshTimeout');
    await page.getByTestId('editor-title').getByText('New MeshTimeout').waitFor();
    await setEditorText(
      page,
      `type: MeshTimeout
mesh: default
name: to-ghost
spec:
  targetRef:
    kind: Mesh
  to:
    - targetRef:
        kind: MeshService
        name: ghost
      default:
        connectionTimeout: 2s
`,
    );
    const warning = 'spec.to[0].targetRef names service "ghost", which no Dataplane of mesh "default" provides or calls (no inbound or outbound tagged kuma.io/service: ghost)';
    const warnings = page.getByTestId('editor-warnings');
    await warnings.getByText('Applying this would be warned:').waitFor();
    await warnings.getByText(warning).waitFor();

    await page.getByRole('button', { name: /^Apply/ }).click();
    await page.getByTestId('editor-notice').getByText('Created MeshTimeout default/to-ghost: version 1').waitFor();
    await warnings.getByText('Applied, with warnings:').waitFor();
    await warnings.getByText(warning).waitFor();

    // A Dataplane providing the service: the same text is no longer warned about.
    const ghost = { type: 'Dataplane', mesh: 'default', name: 'ghost-1', networking: { address: '127.0.0.1', inbound: [{ port: 18099, tags: { 'kuma.io/service': 'ghost' } }] } };
    await applyDataplane(core, ghost);
    await page.locator('.cm-line', { hasText: 'connectionTimeout: 2s' }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('3s');
    await eventually(async () => expect(await warnings.count()).toBe(0));
  });
});
