import { status } from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { eventually } from '../support/eventually.js';
import { putResource } from '../support/put-resource.js';
import { NOT_FOUND } from './support/browser.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

/** A real stream for node `nodeId`, bringing `dataplane` in its metadata when given; closed after the test. */
function proxy(core: Core, nodeId: string, dataplane?: object): RawAdsClient {
  const metadata = dataplane && { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane) };
  const client = new RawAdsClient(core.xds.port, { id: nodeId, ...(metadata && { metadata }) });
  onTestFinished(() => client.close());
  client.send(CLUSTER_TYPE_URL);
  return client;
}

const dataplane = (name: string, port = 18080) => ({
  type: 'Dataplane',
  mesh: 'default',
  name,
  networking: { address: '127.0.0.1', inbound: [{ port, servicePort: 8080, tags: { 'kuma.io/service': name } }] },
});

describe('proxies as they really are', () => {
  it('lists a proxy without a Dataplane and a refused one, each with its state and what it was told', async () => {
    const core = await ui.core();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
    proxy(core, 'default.ghost');
    const refused = proxy(core, 'default.bad', { ...dataplane('bad'), networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: {} }] } });
    const told = await refused.status;
    expect(told.code).toBe(status.INVALID_ARGUMENT);
    const { page, expected } = await ui.open(core);
    // It has no Dataplane and no configuration: the detail asks for them and is told so.
    expected.push(NOT_FOUND);

    const ghost = page.getByRole('row').filter({ hasText: 'ghost' });
    await expect.poll(() => ghost.locator('[data-state]').getAttribute('data-state')).toBe('no-dataplane');
    await expect.poll(() => ghost.innerText()).toContain('no Dataplane');
    const bad = page.getByRole('row').filter({ hasText: 'bad' });
    await expect.poll(() => bad.locator('[data-state]').getAttribute('data-state')).toBe('refused');
    expect(await bad.innerText()).toContain('INVALID_ARGUMENT');
    expect(await bad.locator('[data-state]').getAttribute('title')).toContain(told.details);

    await page.goto(page.url().replace(/#.*$/, '#/proxies/default.bad/timeline'));
    await expect.poll(() => page.getByTestId('refusal').innerText()).toContain(`INVALID_ARGUMENT: ${told.details}`);
    await expect.poll(() => page.getByTestId('wait-cause').innerText()).toContain('Refused with INVALID_ARGUMENT');
    expect(await page.getByTestId('wait-cause').innerText()).not.toContain('existed before the proxy connected');

  });

  it('shows a proxy refused for its missing token in a mesh with mTLS, with the reason', async () => {
    const core = await ui.core();
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } });
    await putResource(core.api.url, '/meshes/default/dataplanes/dp-2', dataplane('dp-2'));
    const told = await proxy(core, 'default.dp-2').status;
    expect(told.code).toBe(status.UNAUTHENTICATED);
    const { page, expected } = await ui.open(core);
    // It was never configured: the detail asks for its configuration and is told so.
    expected.push(NOT_FOUND);

    const row = page.getByRole('row').filter({ hasText: 'dp-2' });
    await expect.poll(() => row.locator('[data-state]').getAttribute('data-state')).toBe('refused');
    expect(await row.innerText()).toContain('UNAUTHENTICATED');
    expect(await row.locator('[data-state]').getAttribute('title')).toContain('it sent no token, and Dataplane "dp-2" in mesh "default" requires one. mesh "default" has mTLS on');

    await page.goto(page.url().replace(/#.*$/, '#/proxies/default.dp-2/timeline'));
    await expect.poll(() => page.getByTestId('refusal').innerText()).toContain(`UNAUTHENTICATED: ${told.details}`);

  });

  it("keeps a departed proxy's story: marked departed, its timeline shown, not \"never seen\"", async () => {
    const core = await ui.core();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate', 'xds.dataplaneDeregistrationDelay': '10ms' });
    const web = proxy(core, 'default.web-1', dataplane('web-1'));
    web.ack(await web.next());
    await eventually(() => expect(core.xds.statusTracker.status('default.web-1')?.state).toBe('configured'));
    web.close();
    await eventually(() => expect(core.xds.statusTracker.status('default.web-1')?.departure).toBeDefined());

    const { page, errors, expected } = await ui.open(core, '#/proxies/default.web-1/timeline');
    // Its Dataplane and its configuration are gone: the detail asks for them and is told so, once each.
    expected.push(NOT_FOUND);

    await expect.poll(() => page.getByTestId('departed').innerText()).toContain('Departed');
    await expect.poll(() => page.locator('[data-event="stream-opened"]').count()).toBe(1);
    expect(await page.locator('[data-state]').first().getAttribute('data-departed')).toBe('');
    await page.goto(page.url().replace(/#.*$/, '#/proxies'));
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'web-1' }).innerText()).toContain('departed');
    expect(errors.filter(NOT_FOUND).length).toBeLessThanOrEqual(4);
  });

  it("Connect a proxy names meshdesk's post-create wait with its countdown, and does not warn about the proxy's own Dataplane", async () => {
    const core = await ui.core();
    core.settings.update({ 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': '1h' });
    const { page } = await ui.open(core, '#/connect');
    await page.getByLabel('Name').fill('app-1');

    proxy(core, 'default.app-1', dataplane('app-1'));

    const indicator = page.getByTestId('connection');
    await expect.poll(() => indicator.getAttribute('data-phase')).toBe('post-create-wait');
    expect(await indicator.innerText()).toMatch(/post-create wait: (59m \d\ds|1h 00m) left/);
    expect(await indicator.innerText()).not.toContain('waiting for the proxy');
    await page.getByTestId('own-dataplane').waitFor();
    expect(await page.getByTestId('existing').count()).toBe(0);
  });

  it('Sync timing compares connections by strategy and by the cache expiration in force when they connected, and says which', async () => {
    const core = await ui.core();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate', 'store.cache.expirationTime': '1s' });
    const first = proxy(core, 'default.web-1', dataplane('web-1'));
    first.ack(await first.next());
    core.settings.update({ 'store.cache.expirationTime': '2s' });
    const second = proxy(core, 'default.web-2', dataplane('web-2', 18081));
    second.ack(await second.next());
    await eventually(() => expect(core.xds.statusTracker.proxies().every((status) => status.types[0]?.lastAcked)).toBe(true));

    const { page } = await ui.open(core, '#/sync');

    const cards = page.locator('[data-strategy="invalidate"]');
    await expect.poll(() => cards.count()).toBe(2);
    expect(await cards.evaluateAll((each) => each.map((card) => card.getAttribute('data-expiration')))).toEqual(['1000', '2000']);
    expect(await cards.nth(0).getByTestId('expiration').innerText()).toMatch(/^1\.00\s?s expiration$/);
    expect(await cards.nth(1).innerText()).toContain('in force');
    expect(await cards.nth(0).innerText()).not.toContain('in force');
  });
});
