// `npm run screenshots`: every view in light and dark, from a real core with live demo data,
// into docs/screenshots/<view>-<theme>.png. Views add themselves to VIEWS.
// `npm run screenshots -- cache resources --size 1024x768 --out /tmp/shots`: some views, another
// window size (the app opens at 1280×800 and must work down to 1024×768), somewhere else.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startCore, type Core } from '../src/main/core.js';
import { DATAPLANE_METADATA_KEY, DATAPLANE_TOKEN_METADATA_KEY } from '../src/main/xds/generate/bootstrap.js';
import { LISTENER_TYPE_URL } from '../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../src/main/xds/server/testing/raw-ads-client.js';
import { launchChromium, openUi } from '../test/ui/support/browser.js';
import { startDemoData } from '../test/ui/support/demo-data.js';

interface ViewShot {
  /** File name stem: `docs/screenshots/<name>-<theme>.png`. */
  name: string;
  hash: string;
  /** Resolves once the view shows what it should (live data loaded). */
  ready: (page: Page, core: Core) => Promise<unknown>;
}

const VIEWS: ViewShot[] = [
  {
    name: 'proxies',
    hash: '#/proxies',
    ready: (page) => page.locator('[data-xds-state="ack"]').first().waitFor(),
  },
  { name: 'proxy-config', hash: '#/proxies/default.frontend-1/config', ready: (page) => page.locator('[data-resource="lds/echo"]').waitFor() },
  {
    name: 'proxy-history',
    hash: '#/proxies/default.frontend-1/history',
    // A second backend for `echo` publishes a new version, so the diff has something to show.
    ready: async (page) => {
      const echo3 = { type: 'Dataplane', mesh: 'default', name: 'echo-3', networking: { address: '127.0.0.1', inbound: [{ port: 18003, tags: { 'kuma.io/service': 'echo', 'kuma.io/protocol': 'grpc' } }] } };
      await page.request.put(new URL('/meshes/default/dataplanes/echo-3', page.url()).href, { data: echo3 });
      await page.locator('[data-diff]').first().waitFor();
    },
  },
  { name: 'proxy-timeline', hash: '#/proxies/default.frontend-1/timeline', ready: (page) => page.getByTestId('first-config-total').waitFor() },
  { name: 'proxy-bootstrap', hash: '#/proxies/default.frontend-1/bootstrap', ready: (page) => page.getByTestId('code-view').locator('.cm-line').first().waitFor() },
  { name: 'cache', hash: '#/cache', ready: showCacheExpirationChange },
  {
    name: 'sync-timing',
    hash: '#/sync',
    ready: (page) => page.locator('[data-strategy="api"]').waitFor().then(() => page.locator('[data-total]').first().waitFor()),
  },
  {
    name: 'resources',
    hash: '#/resources/dataplane/default/web-1',
    ready: (page) => page.locator('.cm-line', { hasText: 'kuma.io/service: web' }).waitFor(),
  },
  {
    // The API's validation errors at their lines (the 400 it answers is expected in the log).
    name: 'resources-invalid',
    hash: '#/resources/dataplane/default/web-1',
    ready: async (page) => {
      const line = page.locator('.cm-line', { hasText: 'port: 18080' });
      await line.click();
      await page.keyboard.press('End');
      await page.keyboard.type('0');
      await page.locator('.cm-line', { hasText: 'kuma.io/protocol: http' }).click();
      await page.keyboard.press('End');
      await page.keyboard.type('3');
      await page.getByRole('button', { name: /^Apply/ }).click();
      await page.getByTestId('violations').waitFor();
    },
  },
  {
    // A change to the initial MeshTimeout, previewed on a proxy before it is applied.
    name: 'policies',
    hash: '#/policies/MeshTimeout/default/mesh-timeout-all-default',
    ready: async (page) => {
      await page.locator('[data-testid=affected-proxies] a').first().waitFor();
      // The second one: the `to` item's, the timeout callers see.
      await page.locator('.cm-line', { hasText: 'requestTimeout' }).nth(1).click();
      await page.keyboard.press('End');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('2s');
      await page.getByLabel('Proxy to preview on').selectOption('frontend-1');
      await page.getByRole('button', { name: 'Preview change' }).click();
      await page.getByTestId('preview-summary').waitFor();
    },
  },
  { name: 'proxy-policies', hash: '#/proxies/default.frontend-1/policies', ready: (page) => page.locator('[data-rules-type]').first().waitFor() },
  {
    // Fields set by policies, marked; the tooltip of one names the policy item behind it.
    name: 'proxy-config-policies',
    hash: '#/proxies/default.frontend-1/config',
    ready: async (page) => {
      const mark = page.locator('[data-policy-mark]').first();
      await mark.scrollIntoViewIfNeeded();
      await mark.hover();
      await page.getByRole('tooltip').first().waitFor();
    },
  },
  {
    // A policy (the default mesh's initial MeshTimeout) in the list and the editor.
    name: 'resources-policy',
    hash: '#/resources/meshtimeout/default/mesh-timeout-all-default',
    ready: (page) => page.locator('.cm-line', { hasText: 'type: MeshTimeout' }).waitFor(),
  },
  { name: 'connect', hash: '#/connect', ready: (page) => page.locator('[data-file^="bootstrap-"] .cm-content').waitFor() },
  { name: 'settings', hash: '#/settings', ready: (page) => page.locator('[data-setting]').first().waitFor() },
  // Mutual TLS on in the payments mesh (last, so the views above show the demo as it starts).
  {
    name: 'mesh-mtls',
    hash: '#/resources/mesh/payments',
    ready: async (page) => {
      await enablePaymentsMtls(page);
      await page.getByTestId('mesh-mtls').locator('.fingerprint').waitFor();
    },
  },
  {
    name: 'proxy-identity',
    hash: '#/proxies/payments.checkout-1/config',
    ready: async (page) => {
      await enablePaymentsMtls(page);
      await page.getByTestId('next-rotation').waitFor();
      await page.locator('[data-resource="cds/ledger"]').waitFor();
    },
  },
  {
    // A shadow MeshTimeout (kuma.io/effect: shadow): badged in the list, and previewed as if it were live.
    name: 'policies-shadow',
    hash: '#/policies/MeshTimeout',
    ready: async (page) => {
      await putShadowTimeout(page);
      await page.locator('[data-policy="default/echo-shadow-timeout"]').getByRole('link', { name: 'echo-shadow-timeout' }).click();
      await page.getByTestId('shadow-notice').waitFor();
      await page.getByLabel('Proxy to preview on').selectOption('frontend-1');
      await page.getByRole('button', { name: 'Preview change' }).click();
      await page.getByTestId('preview-summary').waitFor();
    },
  },
  {
    // The proxy's rules with its shadow policies applied, each origin badged.
    name: 'proxy-policies-shadow',
    hash: '#/proxies/default.frontend-1/policies',
    ready: async (page) => {
      await putShadowTimeout(page);
      await page.getByTestId('show-shadow').check();
      await page.locator('[data-matched-policy="MeshTimeout/echo-shadow-timeout"]').waitFor();
    },
  },
  {
    // The API's warnings about a policy, before Apply: a `to` item that names a service no Dataplane has.
    name: 'policies-warnings',
    hash: '#/policies/new/MeshTimeout',
    ready: async (page) => {
      await page.getByTestId('editor-title').getByText('New MeshTimeout').waitFor();
      await page.locator('.cm-content').click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText(
        'type: MeshTimeout\nmesh: default\nname: payments-timeout\nspec:\n  targetRef:\n    kind: MeshSubset\n    tags:\n      kuma.io/service: frontend\n  to:\n    - targetRef:\n        kind: MeshService\n        name: payments\n      default:\n        http:\n          requestTimeout: 2s\n',
      );
      await page.getByTestId('editor-warnings').waitFor();
    },
  },
  {
    // Who may call whom in the payments mesh once mTLS is on; one cell's RBAC config open, another's tooltip.
    name: 'permission-matrix',
    hash: '#/policies/permissions/payments',
    ready: async (page, core) => {
      await addPaymentsPermissions(page, core);
      await enablePaymentsMtls(page);
      await page.locator('[data-cell="reports→fraud"]').click();
      // fraud-1's configuration with mTLS on: its inbound listener's RBAC filter.
      await page.getByTestId('rbac-config').locator('.cm-line', { hasText: 'spiffe://payments/reports' }).waitFor();
      await page.locator('[data-cell="ledger→checkout"]').hover();
      await page.getByTestId('permission-tip').waitFor();
    },
  },
  {
    // What issue 25 tried as a new user, in the default mesh: each finding with its fix.
    name: 'analysis',
    hash: '#/analysis/default',
    ready: async (page) => {
      await addDefaultMeshMistakes(page);
      await page.locator('[data-finding=MD0011]').waitFor();
    },
  },
  {
    // The same mesh seen as edges: each caller's outbound to echo with the canary split and the policies on it.
    name: 'services',
    hash: '#/services/default/tag%3Aecho',
    ready: async (page) => {
      await addDefaultMeshMistakes(page);
      await page.getByTestId('edge-route').first().waitFor();
    },
  },
];

/**
 * A mesh-wide MeshTimeout that Kuma's default overrides, a header rule behind a 90/10 split, and a
 * MeshTrafficPermission with mTLS off, in the default mesh.
 */
async function addDefaultMeshMistakes(page: Page): Promise<void> {
  const put = async (collection: string, type: string, name: string, spec: object) => {
    const response = await page.request.put(new URL(`/meshes/default/${collection}/${name}`, page.url()).href, { data: { type, mesh: 'default', name, spec } });
    if (!response.ok()) throw new Error(`PUT ${collection}/${name} answered ${response.status()}: ${await response.text()}`);
  };
  const mesh = { kind: 'Mesh' };
  const echo = { kind: 'MeshService', name: 'echo' };
  await put('meshtimeouts', 'MeshTimeout', 'slow-timeout', { targetRef: mesh, to: [{ targetRef: mesh, default: { http: { requestTimeout: '60s' } } }] });
  await put('meshhttproutes', 'MeshHTTPRoute', 'echo-canary', {
    targetRef: mesh,
    to: [
      {
        targetRef: echo,
        rules: [
          { matches: [{ headers: [{ name: 'x-version', value: 'v2' }] }], default: { backendRefs: [echo] } },
          { matches: [{ path: { type: 'PathPrefix', value: '/' } }], default: { backendRefs: [{ ...echo, weight: 90 }, { ...echo, weight: 10 }] } },
        ],
      },
    ],
  });
  await put('meshtrafficpermissions', 'MeshTrafficPermission', 'allow-web', { targetRef: echo, from: [{ targetRef: { kind: 'MeshService', name: 'web' }, default: { action: 'Allow' } }] });
}

/** Streams the screenshots open besides the demo's, closed before the core. */
const openStreams: RawAdsClient[] = [];

/**
 * Two more services in the payments mesh and their permissions: legacy `from` items on ledger,
 * `rules` on fraud (an Envoy sidecar, connected as a raw ADS stream), none on checkout (so mTLS
 * denies every caller of it).
 */
async function addPaymentsPermissions(page: Page, core: Core): Promise<void> {
  const put = async (path: string, data: object) => {
    const response = await page.request.put(new URL(path, page.url()).href, { data });
    if (!response.ok()) throw new Error(`PUT ${path} answered ${response.status()}: ${await response.text()}`);
  };
  for (const [name, service, port] of [
    ['fraud-1', 'fraud', 18101],
    ['reports-1', 'reports', 18102],
  ] as const) {
    const inbound = [{ port, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'http' } }];
    const dataplane = { type: 'Dataplane', mesh: 'payments', name, networking: { address: '127.0.0.1', inbound } };
    await put(`/meshes/payments/dataplanes/${name}`, dataplane);
    if (name === 'fraud-1' && openStreams.length === 0) {
      const token = core.xds.dataplaneTokens.tokenFor({ mesh: 'payments', name: 'fraud-1' })!;
      const metadata = { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane), [DATAPLANE_TOKEN_METADATA_KEY]: token };
      const sidecar = new RawAdsClient(core.xds.port, { id: 'payments.fraud-1', metadata });
      sidecar.send(LISTENER_TYPE_URL);
      openStreams.push(sidecar);
    }
  }
  const permission = (name: string, spec: object) => put(`/meshes/payments/meshtrafficpermissions/${name}`, { type: 'MeshTrafficPermission', mesh: 'payments', name, spec });
  await permission('ledger-callers', {
    targetRef: { kind: 'MeshService', name: 'ledger' },
    from: [
      { targetRef: { kind: 'Mesh' }, default: { action: 'Deny' } },
      { targetRef: { kind: 'MeshService', name: 'checkout' }, default: { action: 'Allow' } },
      { targetRef: { kind: 'MeshService', name: 'fraud' }, default: { action: 'AllowWithShadowDeny' } },
    ],
  });
  await permission('fraud-callers', {
    targetRef: { kind: 'MeshService', name: 'fraud' },
    rules: [{ default: { deny: [{ spiffeID: { type: 'Prefix', value: 'spiffe://payments/reports' } }], allow: [{ spiffeID: { type: 'Prefix', value: 'spiffe://payments' } }] } }],
  });
  await permission('reports-open', { targetRef: { kind: 'MeshService', name: 'reports' }, from: [{ targetRef: { kind: 'Mesh' }, default: { action: 'Allow' } }] });
}

/** A MeshTimeout for frontend's calls to echo, labelled `kuma.io/effect: shadow`, then the view anew. */
async function putShadowTimeout(page: Page): Promise<void> {
  const spec = { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'MeshService', name: 'echo' }, default: { http: { requestTimeout: '300ms' } } }] };
  const data = { type: 'MeshTimeout', mesh: 'default', name: 'echo-shadow-timeout', labels: { 'kuma.io/effect': 'shadow' }, spec };
  const response = await page.request.put(new URL('/meshes/default/meshtimeouts/echo-shadow-timeout', page.url()).href, { data });
  if (!response.ok()) throw new Error(`PUT echo-shadow-timeout answered ${response.status()}: ${await response.text()}`);
  await page.reload();
}

/** Builtin mTLS in the payments mesh, STRICT, 24h certificates (Kuma's default), then the view anew. */
async function enablePaymentsMtls(page: Page): Promise<void> {
  const mtls = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', mode: 'STRICT', dpCert: { rotation: { expiration: '24h' } } }] };
  await page.request.put(new URL('/meshes/payments', page.url()).href, { data: { type: 'Mesh', name: 'payments', mtls } });
  await page.reload();
}

/** A few seconds of the live chart, a cache expiration change (marked on it), then a few more. */
async function showCacheExpirationChange(page: Page): Promise<void> {
  const control = page.getByTestId('cache-expiration');
  await control.waitFor();
  await page.waitForTimeout(5000);
  const preset = (await control.getByRole('radio', { name: '500ms', checked: true }).count()) > 0 ? '1s' : '500ms';
  await control.getByRole('radio', { name: preset }).click();
  await page.waitForTimeout(5000);
  // Entries come and go with their expiration: take the picture while some are cached.
  await page.locator('[data-time-left-ms]').first().waitFor();
}

const THEMES = ['light', 'dark'] as const;

/**
 * The empty Proxies view with its "Start a demo mesh", and the demo running after one click: on a
 * core of their own (the other views' demo data would fill the view), at the window's 1280×800.
 */
async function demoShots(browser: Awaited<ReturnType<typeof launchChromium>>, outDir: string): Promise<void> {
  for (const theme of THEMES) {
    const dataDir = mkdtempSync(join(tmpdir(), 'meshdesk-screenshots-demo-'));
    const core = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    try {
      const { page, context } = await openUi(browser, core.api.url, { hash: '#/proxies', colorScheme: theme, viewport: { width: 1280, height: 800 } });
      await page.getByTestId('demo-offer').waitFor();
      await page.screenshot({ path: join(outDir, `demo-empty-${theme}.png`) });
      await page.getByRole('button', { name: 'Start a demo mesh' }).click();
      // Every proxy configured (its time to first config shown) and calls counted on both versions.
      await page.locator('[role=row]', { hasText: 'greeter-client' }).getByText(/^\d+(\.\d+)? (ms|s)$/).waitFor();
      await page.getByTestId('demo-calls').getByText(/\d{2,} v1, [1-9]\d* v2/).waitFor();
      await page.screenshot({ path: join(outDir, `demo-running-${theme}.png`) });
      await context.close();
      console.log(join(outDir, `demo-{empty,running}-${theme}.png`));
    } finally {
      await core.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

/** `--size WxH` and `--out DIR` among the view names. */
function parseArguments(args: string[]) {
  const options = { only: [] as string[], viewport: { width: 1440, height: 900 }, outDir: 'docs/screenshots' };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (arg === '--size') {
      const [width, height] = (args[++index] ?? '').split('x').map(Number);
      if (!width || !height) throw new Error('--size takes WIDTHxHEIGHT, e.g. 1280x800');
      options.viewport = { width, height };
    } else if (arg === '--out') {
      options.outDir = args[++index] ?? options.outDir;
    } else {
      options.only.push(arg);
    }
  }
  return options;
}

async function main(): Promise<void> {
  const { only, viewport, outDir: OUT_DIR } = parseArguments(process.argv.slice(2));
  const browser = await launchChromium();
  mkdirSync(OUT_DIR, { recursive: true });
  if (only.length === 0 || only.includes('demo')) await demoShots(browser, OUT_DIR);
  const dataDir = mkdtempSync(join(tmpdir(), 'meshdesk-screenshots-'));
  const core = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
  const demo = await startDemoData(core);
  try {
    // Let every demo proxy get and ACK its first configuration.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const view of VIEWS.filter((each) => only.length === 0 || only.includes(each.name))) {
      for (const theme of THEMES) {
        const { page, context, errors } = await openUi(browser, core.api.url, { hash: view.hash, colorScheme: theme, viewport });
        await view.ready(page, core);
        if (view.name !== 'cache') await page.waitForTimeout(400);
        const file = join(OUT_DIR, `${view.name}-${theme}.png`);
        await page.screenshot({ path: file });
        await context.close();
        console.log(`${file}${errors.length > 0 ? `  (page errors: ${errors.join('; ')})` : ''}`);
      }
    }
  } finally {
    for (const stream of openStreams) stream.close();
    await browser.close();
    await demo.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
