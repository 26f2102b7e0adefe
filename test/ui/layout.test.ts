import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startDemoData } from './support/demo-data.js';
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
}

const VIEWS: ViewCheck[] = [
  {
    hash: '#/proxies',
    ready: (page) => page.locator('[data-xds-state="ack"]').first().waitFor(),
    key: ['[role=grid][aria-label=Proxies] [role=columnheader]', '[role=grid][aria-label=Proxies] [data-xds-type=rds]', '[aria-label="Search proxies"]'],
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
      await page.locator('.cm-line', { hasText: 'kuma.io/service: web' }).waitFor();
      await page.locator('[data-resource]').first().waitFor();
    },
    key: ['.editor-pane .toolbar button', '[data-resource]'],
  },
  {
    hash: '#/policies/MeshTimeout/default/mesh-timeout-all-default',
    ready: (page) => page.locator('[data-testid=affected-proxies] a').first().waitFor(),
    key: ['[data-policy-type]', '.editor-pane .toolbar button', '[data-testid=policy-preview] button', '[data-policy] td'],
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
        }
      }
      expect(problems).toEqual([]);
    } finally {
      await demo.close();
    }
  });
});
