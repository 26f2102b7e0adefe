import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { applyDataplane, httpDataplane, tokenMetadata } from '../support/dataplanes.js';
import { putResource } from '../support/put-resource.js';
import { hashOf } from './support/browser.js';
import { textOutsideItsBox } from './support/text-fit.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

const MESH = { kind: 'Mesh' };
const BACKEND = { kind: 'MeshService', name: 'backend' };
const BACKEND_1 = httpDataplane('default', 'backend-1', 'backend', 18081);

/**
 * web and portal calling backend with mTLS on: a 90/10 canary split to backend-v2, web allowed and
 * portal not, a mesh-wide MeshTimeout, and a MeshService named backend beside the tag service.
 */
async function meshOfServices(core: Core): Promise<void> {
  await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } });
  await applyDataplane(core, httpDataplane('default', 'web-1', 'web', 18080, 'backend'));
  await applyDataplane(core, httpDataplane('default', 'portal-1', 'portal', 18083, 'backend'));
  await applyDataplane(core, BACKEND_1);
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
          { matches: [{ path: { type: 'PathPrefix', value: '/' } }], default: { backendRefs: [{ ...BACKEND, weight: 90 }, { kind: 'MeshService', name: 'backend-v2', weight: 10 }] } },
          // One target twice (as issue 25's user wrote a split): listed twice, drawn once.
          { matches: [{ headers: [{ name: 'x-version', value: 'v2' }] }], default: { backendRefs: [{ ...BACKEND, weight: 1 }, { ...BACKEND, weight: 1 }] } },
        ],
      },
    ],
  });
  await policy('MeshTrafficPermission', 'meshtrafficpermissions', 'allow-web', { targetRef: BACKEND, from: [{ targetRef: { kind: 'MeshService', name: 'web' }, default: { action: 'Allow' } }] });
  await putResource(core.api.url, '/meshes/default/meshservices/backend', {
    type: 'MeshService',
    mesh: 'default',
    name: 'backend',
    spec: { selector: { dataplaneTags: { 'kuma.io/service': 'backend' } }, ports: [{ port: 80, targetPort: 18081, appProtocol: 'http' }] },
  });
}

/** backend-1's proxy, connected: its endpoint shows online. */
function connectBackend(core: Core): RawAdsClient {
  const proxy = new RawAdsClient(core.xds.port, { id: 'default.backend-1', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(BACKEND_1), ...tokenMetadata(core, 'backend-1') } });
  proxy.send(LISTENER_TYPE_URL);
  return proxy;
}

describe('the Services view', () => {
  it('lists every service, and shows the selected one’s endpoints and callers with their splits, permissions and policies, live', async () => {
    const core = await ui.core();
    await meshOfServices(core);
    const { page } = await ui.open(core, '#/services');
    const rows = page.locator('[data-service]');
    await expect.poll(() => rows.evaluateAll((each) => each.map((row) => row.getAttribute('data-service')))).toEqual([
      'tag:backend',
      'MeshService:backend',
      'tag:backend-v2',
      'tag:portal',
      'tag:web',
    ]);
    expect(await rows.first().locator('td').allInnerTexts()).toEqual(['backend', 'tag', 'http', '18081', '—', '0/1', '2']);
    expect(await page.locator('[data-service="MeshService:backend"] td').nth(3).innerText()).toBe('80');

    // The first service is selected: its endpoint links to its proxy; each caller shows its edge.
    const panel = page.getByTestId('service-panel');
    expect(await panel.getByRole('heading', { level: 2 }).innerText()).toBe('backend');
    expect(await panel.getByTestId('service-endpoints').getByRole('link', { name: 'backend-1' }).getAttribute('href')).toBe('#/proxies/default.backend-1');
    const web = panel.locator('[data-caller=web-1]');
    expect(await web.locator('[data-decision]').innerText()).toBe('allowed');
    // The outbound leads to the caller's generated config, where its listener implements the edge.
    expect(await web.getByRole('link', { name: '127.0.0.1:10001' }).getAttribute('href')).toBe('#/proxies/default.web-1/config');
    expect(await panel.locator('[data-caller=portal-1] [data-decision]').innerText()).toBe('denied');
    expect(await web.getByTestId('edge-route').innerText()).toMatch(/canary\s+prefix \/\s+backend 90%\s*backend-v2 10%/);
    expect(await web.getByTestId('edge-route').innerText()).toMatch(/header x-version=v2\s+backend 50%\s*backend 50%/);
    expect(await web.getByTestId('edge-policies').getByRole('link').allInnerTexts()).toEqual(expect.arrayContaining(['MeshHTTPRoute canary', 'MeshTimeout slow-timeout']));
    const nodes = page.getByTestId('service-graph').locator('[data-node]');
    expect(await nodes.evaluateAll((each) => each.map((node) => node.getAttribute('data-node')))).toEqual(['portal-1', 'web-1', 'backend', 'backend-v2', 'backend']);

    // Live: backend-1's proxy connects, and its endpoint turns online.
    const proxy = connectBackend(core);
    try {
      await proxy.next();
      await expect.poll(() => rows.first().locator('td').nth(5).innerText()).toBe('1/1');
      expect(await panel.getByTestId('service-endpoints').innerText()).toContain('online');
    } finally {
      proxy.close();
    }

    // Keyboard: a service's name is a link; Enter selects it.
    await page.locator('[data-service="tag:web"] a').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => hashOf(page)).toBe('#/services/default/tag%3Aweb');
    expect(await panel.getByRole('heading', { level: 2 }).innerText()).toBe('web');
    expect(await panel.getByTestId('no-endpoints').count()).toBe(0);

    // A policy name leads to the policy.
    await page.locator('[data-service="tag:backend"] a').click();
    await web.getByTestId('edge-policies').getByRole('link', { name: 'MeshHTTPRoute canary' }).click();
    await expect.poll(() => hashOf(page)).toBe('#/policies/MeshHTTPRoute/default/canary');
  });

  it('holds its text inside its boxes at 1024, 1280 and 1440 px, in light and dark', async () => {
    const core = await ui.core();
    await meshOfServices(core);
    const proxy = connectBackend(core);
    await proxy.next();
    const problems: string[] = [];
    try {
      for (const colorScheme of ['light', 'dark'] as const) {
        for (const width of [1024, 1280, 1440]) {
          const viewport = { width, height: width === 1024 ? 768 : width === 1280 ? 800 : 900 };
          const { page } = await ui.open(core, '#/services/default/tag%3Abackend', { viewport, colorScheme });
          await expect.poll(() => page.locator('[data-service="tag:backend"] td').nth(5).innerText()).toBe('1/1');
          await page.locator('[data-caller=portal-1] [data-decision]').waitFor();
          const { boxes, problems: found } = await textOutsideItsBox(page, '[data-service] td, [data-testid=service-panel] li, [data-testid=service-panel] header', '.pill');
          expect(boxes).toBeGreaterThan(30);
          problems.push(...found.map((each) => `${width}px ${colorScheme} ${each}`));
          if ((await page.evaluate('document.scrollingElement.scrollWidth > innerWidth')) as boolean) problems.push(`${width}px: the page scrolls sideways`);
          if (process.env.MESHDESK_SCREENSHOT_DIR && width === 1280) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, `services-${colorScheme}.png`) });
        }
      }
    } finally {
      proxy.close();
    }
    expect(problems).toEqual([]);
  });
});
