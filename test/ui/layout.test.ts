import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Page } from 'playwright-core';
import type { Core } from '../../src/main/core.js';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { putResource } from '../support/put-resource.js';
import { startDemoData } from './support/demo-data.js';
import { waitForEditorText } from './support/editor.js';
import { textOutsideItsBox } from './support/text-fit.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

/** The window's default size and the smallest it must work at. */
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 768 },
];

interface ViewCheck {
  hash: string;
  /** Resolves once the view shows its data. */
  ready: (page: Page) => Promise<unknown>;
  /** What must be entirely visible: CSS selectors, each matching at least one element. */
  key: string[];
  /** Boxes whose text must be drawn whole inside them (not cut, not ellipsized): names a user reads. */
  readable?: string[];
}

const VIEWS: ViewCheck[] = [
  {
    hash: '#/proxies',
    ready: (page) => page.locator('[data-xds-state="ack"]').first().waitFor(),
    key: ['[role=grid][aria-label=Proxies] [role=columnheader]', '[role=grid][aria-label=Proxies] [data-xds-type=rds]', '[aria-label="Search proxies"]'],
    readable: ['[role=grid][aria-label=Proxies] [role=gridcell].name', '[role=grid][aria-label=Proxies] [role=columnheader]'],
  },
  {
    hash: '#/proxies/default.frontend-1/config',
    ready: (page) => page.locator('[data-resource="lds/echo"]').waitFor(),
    key: ['[role=tab]', '[data-xds-type]'],
  },
  {
    hash: '#/proxies/default.frontend-1/history',
    ready: (page) => page.locator('[data-snapshot]').first().waitFor(),
    key: ['[role=tab]', '[data-snapshot] td'],
  },
  {
    hash: '#/cache',
    ready: (page) => page.locator('[role=grid][aria-label="Cache entries"] [role=row]:not([aria-rowindex="1"])').first().waitFor(),
    // Entries come and go with their expiration; the headers stand for their columns.
    key: ['[role=grid][aria-label="Cache entries"] [role=columnheader]', '[data-testid=cache-counters] th', '[data-testid=cache-expiration] input'],
    readable: ['.tile:has([data-stat])'],
  },
  {
    hash: '#/sync',
    ready: (page) => page.locator('[data-total]').first().waitFor(),
    key: ['[role=grid][aria-label="Time to first config per proxy"] [role=columnheader]'],
  },
  {
    hash: '#/resources/dataplane/default/web-1',
    // The list and the editor load apart: under load the list can come after the editor's text.
    ready: async (page) => {
      await waitForEditorText(page, 'kuma.io/service: web');
      await page.locator('[data-resource]').first().waitFor();
    },
    key: ['.editor-pane .toolbar button', '[data-resource]'],
  },
  {
    hash: '#/policies/MeshTimeout/default/mesh-timeout-all-default',
    ready: (page) => page.locator('[data-testid=affected-proxies] a').first().waitFor(),
    key: ['[data-policy-type]', '.editor-pane .toolbar button', '[data-testid=policy-preview] button', '[data-policy] td'],
    readable: ['[data-policy-type]'],
  },
  {
    hash: '#/proxies/default.frontend-1/policies',
    ready: (page) => page.locator('[data-rules-type]').first().waitFor(),
    key: ['[role=tab]', '[data-matched-policy]', '[data-rules-type] h2'],
  },
  {
    hash: '#/policies/permissions/default',
    ready: (page) => page.locator('[data-cell]').first().waitFor(),
    key: ['[data-cell]', 'select[aria-label=Mesh]', 'a[href="#/policies/new/MeshTrafficPermission"]'],
  },
  {
    hash: '#/connect',
    ready: (page) => page.locator('[data-file^="bootstrap-"] .cm-content').waitFor(),
    key: ['[data-file] button', 'form input'],
  },
  {
    hash: '#/settings',
    ready: (page) => page.locator('[data-setting]').first().waitFor(),
    key: ['[data-setting] input, [data-setting] select'],
  },
];

/**
 * Every element `selector` matches that is rendered, not contained in the viewport or cut by an
 * ancestor that clips (overflow other than visible), described; and whether the page scrolls sideways.
 */
function findCut(selector: string): string {
  return `(() => {
    const cut = [];
    const elements = [...document.querySelectorAll(${JSON.stringify(selector)})].filter((element) => element.getClientRects().length > 0);
    for (const element of elements) {
      const box = element.getBoundingClientRect();
      const describe = (why) => cut.push((element.getAttribute('aria-label') || element.textContent || element.tagName).trim().slice(0, 40) + ': ' + why);
      if (box.left < -1 || box.right > innerWidth + 1) { describe('outside the viewport (' + Math.round(box.left) + '..' + Math.round(box.right) + ')'); continue; }
      for (let parent = element.parentElement; parent; parent = parent.parentElement) {
        const style = getComputedStyle(parent);
        if (style.overflowX === 'visible') continue;
        const clip = parent.getBoundingClientRect();
        if (box.left < clip.left - 1 || box.right > clip.right + 1) { describe('cut by ' + parent.className + ' at ' + Math.round(clip.right)); break; }
      }
    }
    return JSON.stringify({ count: elements.length, cut, pageScrollsSideways: document.scrollingElement.scrollWidth > innerWidth });
  })()`;
}

describe('every view fits the 1280×800 window and a 1024×768 one', () => {
  it('shows its key columns and controls inside the viewport, uncut, without a sideways page scroll', async () => {
    const core = await ui.core();
    const demo = await startDemoData(core);
    try {
      const problems: string[] = [];
      for (const viewport of SIZES) {
        // One page per size, going from view to view as the keyboard and the links do: loading the
        // UI again for each view would check nothing more.
        const { page } = await ui.open(core, VIEWS[0]!.hash, { viewport });
        for (const view of VIEWS) {
          await page.goto(new URL(view.hash, page.url()).href);
          await view.ready(page);
          for (const selector of view.key) {
            const { count, cut, pageScrollsSideways } = JSON.parse((await page.evaluate(findCut(selector))) as string) as {
              count: number;
              cut: string[];
              pageScrollsSideways: boolean;
            };
            const where = `${viewport.width}×${viewport.height} ${view.hash} ${selector}`;
            if (count === 0) problems.push(`${where}: nothing matches`);
            problems.push(...cut.map((each) => `${where}: ${each}`));
            if (pageScrollsSideways) problems.push(`${where}: the page scrolls sideways`);
          }
          for (const selector of view.readable ?? []) {
            const { problems: found } = await textOutsideItsBox(page, selector);
            problems.push(...found.map((each) => `${viewport.width}×${viewport.height} ${view.hash} ${each}`));
          }
        }
      }
      expect(problems).toEqual([]);
    } finally {
      await demo.close();
    }
  });
});

/** Every width the app must be complete at: the smallest window, the default one, a large one. */
const WIDTHS = [
  { width: 1024, height: 768 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
];

/** A real stream registering `name` through its metadata (or finding an API-created one), its clusters ACKed. */
async function ackedProxy(core: Core, name: string, port: number, register = true): Promise<RawAdsClient> {
  const dataplane = { type: 'Dataplane', mesh: 'default', name, networking: { address: '127.0.0.1', inbound: [{ port, servicePort: 8080, tags: { 'kuma.io/service': name } }] } };
  if (!register) await putResource(core.api.url, `/meshes/default/dataplanes/${name}`, dataplane);
  const client = new RawAdsClient(core.xds.port, { id: `default.${name}`, ...(register && { metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane) } }) });
  onTestFinished(() => client.close());
  client.send(CLUSTER_TYPE_URL);
  client.ack(await client.next());
  return client;
}

describe('boxes hold their text at 1024, 1280 and 1440 px', () => {
  it('Sync timing: any number of strategy × expiration cards, no figure or badge wrapped or cut; 0 s reads as caching off', async () => {
    const core = await ui.core();
    let port = 18100;
    // Seven groups: three strategies at 0 s (caching off) and 100 ms, and API-created.
    for (const strategy of ['sleep', 'invalidate', 'none'] as const) {
      for (const expiration of ['100ms', '0s']) {
        core.settings.update({ 'xds.postCreateStrategy': strategy, 'store.cache.expirationTime': expiration });
        await ackedProxy(core, `${strategy}-${expiration}`, port++);
      }
    }
    await ackedProxy(core, 'api-created', port++, false);

    const problems: string[] = [];
    for (const viewport of WIDTHS) {
      const { page } = await ui.open(core, '#/sync', { viewport });
      await expect.poll(() => page.locator('[data-strategy] [data-figure="median"]', { hasText: /\d/ }).count()).toBe(7);
      const { boxes, problems: found } = await textOutsideItsBox(page, '[data-strategy]', '[data-figure], dd, .pill, [data-testid=expiration]');
      expect(boxes).toBe(7);
      problems.push(...found.map((each) => `${viewport.width}px ${each}`));
      if ((await page.evaluate('document.scrollingElement.scrollWidth > innerWidth')) as boolean) problems.push(`${viewport.width}px: the page scrolls sideways`);
    }
    expect(problems).toEqual([]);

    const { page } = await ui.open(core, '#/sync');
    expect(await page.locator('[data-strategy="sleep"][data-expiration="0"]').getByTestId('expiration').innerText()).toBe('0 s (caching off)');
    expect(await page.locator('.view-header .subtitle').innerText()).toContain('cache expiration 0 s (caching off)');
  });

  it('Proxies: every state a proxy can reach keeps its label, its detail and its first-config cell inside their columns', async () => {
    const core = await ui.core();
    core.settings.update({ 'xds.dataplaneDeregistrationDelay': '10m' });
    await ackedProxy(core, 'online-web', 18300);
    // Refused and departed: its Dataplane names a mesh that does not exist (the longest code name a refusal shows).
    const stray = { type: 'Dataplane', mesh: 'nowhere', name: 'stray', networking: { address: '127.0.0.1', inbound: [{ port: 18301, servicePort: 8080, tags: { 'kuma.io/service': 'stray' } }] } };
    const refused = new RawAdsClient(core.xds.port, { id: 'nowhere.stray', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(stray) } });
    onTestFinished(() => refused.close());
    refused.send(CLUSTER_TYPE_URL);
    expect((await refused.status).code).toBe(9);
    // Offline, its Dataplane deleted when the countdown ends.
    (await ackedProxy(core, 'gone-web', 18302)).close();
    // Connected with no Dataplane.
    const ghost = new RawAdsClient(core.xds.port, { id: 'default.ghost' });
    onTestFinished(() => ghost.close());
    ghost.send(CLUSTER_TYPE_URL);
    // In the post-create wait, its countdown running.
    core.settings.update({ 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': '10m' });
    const waiting = { type: 'Dataplane', mesh: 'default', name: 'waiting-web', networking: { address: '127.0.0.1', inbound: [{ port: 18303, servicePort: 8080, tags: { 'kuma.io/service': 'waiting-web' } }] } };
    const sleeper = new RawAdsClient(core.xds.port, { id: 'default.waiting-web', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(waiting) } });
    onTestFinished(() => sleeper.close());
    sleeper.send(CLUSTER_TYPE_URL);

    const problems: string[] = [];
    for (const viewport of WIDTHS) {
      const { page } = await ui.open(core, '#/proxies', { viewport });
      const table = page.locator('[role=grid][aria-label=Proxies]');
      for (const state of ['configured', 'refused', 'offline', 'no-dataplane', 'waiting']) await table.locator(`[data-state="${state}"]`).first().waitFor();
      await expect.poll(() => table.locator('[data-state=refused]').innerText()).toMatch(/FAILED_PRECONDITION/);
      await expect.poll(() => table.locator('[data-state=offline]').innerText()).toMatch(/left/);
      const { boxes, problems: found } = await textOutsideItsBox(page, '[role=grid][aria-label=Proxies] :is(.name, .state-cell, .first-config)');
      expect(boxes).toBe(15);
      problems.push(...found.map((each) => `${viewport.width}px ${each}`));
      const overflowing = (await page.evaluate(
        `[...document.querySelectorAll('[role=grid][aria-label=Proxies] [role=row]')].filter((row) => row.scrollWidth > row.clientWidth + 1).map((row) => row.scrollWidth + '>' + row.clientWidth).join(' ')`,
      )) as string;
      if (overflowing) problems.push(`${viewport.width}px: rows are wider than the table: ${overflowing}`);
      if (process.env.MESHDESK_SCREENSHOT_DIR) await page.screenshot({ path: join(process.env.MESHDESK_SCREENSHOT_DIR, `proxies-states-${viewport.width}.png`) });
    }
    expect(problems).toEqual([]);
  });

  it('the permission matrix with mTLS off keeps every cell’s words inside the cell', async () => {
    const core = await ui.core();
    let port = 18200;
    for (const service of ['frontend', 'ledger', 'fraud-detection', 'reports']) {
      await applyDataplane(core, backendDataplane(`${service}-1`, port++, service));
    }
    const permission = (name: string, spec: object) =>
      putResource(core.api.url, `/meshes/default/meshtrafficpermissions/${name}`, { type: 'MeshTrafficPermission', mesh: 'default', name, spec });
    // Every decision a cell can show once mTLS is on: allowed, denied, shadow-denied, and denied for want of a permission.
    await permission('ledger-callers', {
      targetRef: { kind: 'MeshService', name: 'ledger' },
      from: [
        { targetRef: { kind: 'Mesh' }, default: { action: 'Deny' } },
        { targetRef: { kind: 'MeshService', name: 'frontend' }, default: { action: 'Allow' } },
        { targetRef: { kind: 'MeshService', name: 'fraud-detection' }, default: { action: 'AllowWithShadowDeny' } },
      ],
    });
    await permission('reports-open', { targetRef: { kind: 'MeshService', name: 'reports' }, from: [{ targetRef: { kind: 'Mesh' }, default: { action: 'AllowWithShadowDeny' } }] });

    const problems: string[] = [];
    for (const viewport of WIDTHS) {
      const { page } = await ui.open(core, '#/policies/permissions/default', { viewport });
      await page.locator('[data-cell="fraud-detection→ledger"][data-decision="not-enforced"]', { hasText: 'shadow' }).waitFor();
      const { boxes, problems: found } = await textOutsideItsBox(page, '[data-cell]', '.icon');
      expect(boxes).toBeGreaterThanOrEqual(16);
      problems.push(...found.map((each) => `${viewport.width}px ${each}`));
    }
    expect(problems).toEqual([]);
  });
});
