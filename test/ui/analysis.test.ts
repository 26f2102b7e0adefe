import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { applyDataplane, httpDataplane } from '../support/dataplanes.js';
import { putResource } from '../support/put-resource.js';
import { NOT_FOUND } from './support/browser.js';
import { waitForEditorText } from './support/editor.js';
import { textOutsideItsBox } from './support/text-fit.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

const MESH = { kind: 'Mesh' };
const BACKEND = { kind: 'MeshService', name: 'backend' };

/**
 * web calling backend (both HTTP) and what issue 25 tried as a new user: a mesh-wide MeshTimeout
 * that Kuma's default overrides, a header rule behind a 90/10 split, and a MeshTrafficPermission
 * with mTLS off.
 */
async function meshWithMistakes(core: Core): Promise<void> {

  await applyDataplane(core, httpDataplane('default', 'web-1', 'web', 18080, 'backend'));
  await applyDataplane(core, httpDataplane('default', 'backend-1', 'backend', 18081));
  await applyDataplane(core, httpDataplane('default', 'backend-v2-1', 'backend-v2', 18082));
  const policy = (type: string, collection: string, name: string, spec: object) =>
    putResource(core.api.url, `/meshes/default/${collection}/${name}`, { type, mesh: 'default', name, spec });
  await policy('MeshTimeout', 'meshtimeouts', 'slow-timeout', { targetRef: MESH, to: [{ targetRef: MESH, default: { http: { requestTimeout: '60s' } } }] });
  await policy('MeshHTTPRoute', 'meshhttproutes', 'canary', {
    targetRef: MESH,
    to: [
      {
        targetRef: BACKEND,
        rules: [
          { matches: [{ headers: [{ name: 'x-version', value: 'v2' }] }], default: { backendRefs: [{ kind: 'MeshService', name: 'backend-v2' }] } },
          { matches: [{ path: { type: 'PathPrefix', value: '/' } }], default: { backendRefs: [{ ...BACKEND, weight: 90 }, { kind: 'MeshService', name: 'backend-v2', weight: 10 }] } },
        ],
      },
    ],
  });
  await policy('MeshTrafficPermission', 'meshtrafficpermissions', 'allow-web', { targetRef: BACKEND, from: [{ targetRef: { kind: 'MeshService', name: 'web' }, default: { action: 'Allow' } }] });
}

describe('the Analysis view', () => {
  it('lists what will not work, worst first, links each finding to its resource, and follows the mesh live', async () => {
    const core = await ui.core();
    await meshWithMistakes(core);
    const { page } = await ui.open(core, '#/analysis');
    const findings = page.getByRole('list', { name: 'Findings' }).locator('[data-finding]');
    await expect.poll(() => findings.evaluateAll((items) => items.map((item) => item.getAttribute('data-finding')))).toEqual(['MD0002', 'MD0003', 'MD0011']);
    expect(await page.getByTestId('analysis-counts').innerText()).toBe('0 errors · 3 warnings · 0 info');
    const unreachable = page.locator('[data-finding=MD0003]');
    expect(await unreachable.innerText()).toContain('(any path, header x-version: v2) can never match for traffic to backend');
    expect(await unreachable.locator('.field').innerText()).toBe('spec.to[0].rules[0].matches[0]');

    // mTLS on: allow-web now lets web reach backend, so its finding leaves (and no outbound is denied).
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } });
    await expect.poll(() => findings.evaluateAll((items) => items.map((item) => item.getAttribute('data-finding')))).toEqual(['MD0002', 'MD0003']);

    await page.getByRole('radio', { name: /^Errors/ }).click();
    await page.getByText('No errors in mesh default.').waitFor();
    await page.getByRole('radio', { name: /^All/ }).click();

    await page.locator('[data-finding=MD0002] a.where').click();
    await expect.poll(() => page.url()).toMatch(/#\/policies\/MeshTimeout\/default\/slow-timeout$/);
    // The Policies list marks the policy, and only it, with its finding.
    const badge = page.locator('[data-policy="default/slow-timeout"] [data-findings]');
    await expect.poll(() => badge.getAttribute('data-findings')).toBe('1');
    expect(await badge.getAttribute('title')).toMatch(/^MD0002: MeshTimeout slow-timeout selects/);
    expect(await page.locator('[data-policy="default/mesh-timeout-all-default"] [data-findings]').count()).toBe(0);
  });

  it("shows a proxy's own findings in its Findings tab: only those naming it", async () => {
    const core = await ui.core();
    await meshWithMistakes(core);
    const { page, expected } = await ui.open(core, '#/proxies/default.web-1/findings');
    // Never connected, these proxies have no configuration: the detail asks for it and is told so.
    expected.push(NOT_FOUND);
    const list = page.getByRole('list', { name: 'Findings for this proxy' });
    await expect.poll(() => list.locator('[data-finding]').evaluateAll((items) => items.map((item) => item.getAttribute('data-finding')))).toEqual(['MD0002', 'MD0003']);
    await page.goto(page.url().replace(/#.*$/, '#/proxies/default.backend-v2-1/findings'));
    await expect.poll(() => page.locator('[data-finding]').evaluateAll((items) => items.map((item) => item.getAttribute('data-finding')))).toEqual(['MD0002']);
    await page.getByRole('tab', { name: 'Findings' }).waitFor();
  });

  it("marks the analysis's findings at their lines in the policy editor, before Apply", async () => {
    const core = await ui.core();
    await meshWithMistakes(core);
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await ui.open(core, '#/policies/MeshHTTPRoute/default/canary', { colorScheme, viewport: { width: 1280, height: 800 } });
      await waitForEditorText(page, 'x-version');
      // An edit (a trailing comment) asks the API what applying it would be warned about.
      await page.locator('.cm-line', { hasText: 'value: v2' }).click();
      await page.keyboard.press('End');
      await page.keyboard.type(' # canary');
      await page.getByTestId('editor-warnings').getByText(/^MD0003: MeshHTTPRoute canary spec\.to\[0\]\.rules\[0\]\.matches\[0\]/).waitFor();
      // The unreachable match is marked where it is written, as a warning; the split rule is not.
      await page.locator('.cm-lintRange-warning').first().waitFor();
      const marked = (await page.locator('.cm-line:has(.cm-lintRange-warning)').allInnerTexts()).join('\n');
      expect(marked).toContain('headers');
      expect(marked).not.toContain('PathPrefix');
      if (process.env.MESHDESK_SCREENSHOT_DIR) {
        await page.locator('.cm-lintRange-warning').first().hover();
        await page.locator('.cm-tooltip-lint').waitFor();
        await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, `policies-analysis-${colorScheme}.png`) });
      }
    }
  });

  it('holds its findings inside their cards at 1024, 1280 and 1440 px, in light and dark', async () => {
    const core = await ui.core();
    await meshWithMistakes(core);
    const problems: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1024, 1280, 1440]) {
        const viewport = { width, height: width === 1024 ? 768 : width === 1280 ? 800 : 900 };
        const { page } = await ui.open(core, '#/analysis/default', { viewport, colorScheme });
        // Each write shows once the mesh's view has it: all three, then measure.
        await expect.poll(() => page.locator('[data-finding]').count()).toBe(3);
        const { boxes, problems: found } = await textOutsideItsBox(page, '[data-finding]', '.severity, .code');
        expect(boxes).toBe(3);
        problems.push(...found.map((each) => `${width}px ${colorScheme} ${each}`));
        if ((await page.evaluate('document.scrollingElement.scrollWidth > innerWidth')) as boolean) problems.push(`${width}px: the page scrolls sideways`);
        if (process.env.MESHDESK_SCREENSHOT_DIR && width === 1280) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, `analysis-${colorScheme}.png`) });
      }
    }
    expect(problems).toEqual([]);
  });
});
