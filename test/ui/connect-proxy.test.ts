import { register } from '@grpc/grpc-js-xds';
import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { encodeMessage } from '../../src/main/xds/protocol/encode.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { echoClient, startEchoServer } from '../support/echo-server.js';
import { eventually } from '../support/eventually.js';
import { useUi } from './support/ui-fixture.js';

register();
const ui = useUi();

// Chromium, a core and real xDS clients on a shared 2-core machine: a bound for hung tests, not a timing assertion.
const ROOM = 90_000;

/** The text of a file panel's (read-only) editor, once it shows one. */
async function fileText(page: Page, filename: string): Promise<string> {
  const content = page.locator(`[data-file="${filename}"] .cm-content`);
  await content.waitFor();
  return content.innerText();
}

describe('Connect a proxy view', () => {
  it('gives an Envoy bootstrap carrying the Dataplane, and stores nothing', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/connect');

    await page.getByLabel('Name').fill('shop-1');
    await page.getByLabel('Service', { exact: true }).fill('shop');

    expect(await page.getByTestId('command').innerText()).toBe('envoy -c bootstrap-shop-1.yaml');
    // The preview follows the form: wait for the one of the last edit (the service), not of the name.
    const bootstrap = await eventually(async () => {
      const parsed = parse(await fileText(page, 'bootstrap-shop-1.yaml'));
      expect(parsed.node.id).toBe('default.shop-1');
      expect(JSON.parse(parsed.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({
        networking: { inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'shop', 'kuma.io/protocol': 'http' } }] },
      });
      return parsed;
    });
    expect(() => encodeMessage('envoy.config.bootstrap.v3.Bootstrap', bootstrap)).not.toThrow();
    expect(parse(await fileText(page, 'dataplane-shop-1.yaml'))).toMatchObject({ type: 'Dataplane', name: 'shop-1' });
    expect(await page.getByTestId('connection').innerText()).toContain('Waiting for connection');
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/shop-1`)).status).toBe(404);
  }, ROOM);

  it('marks bad fields as they are typed, and shows what only the API knows at its field', async () => {
    const core = await ui.core();
    const { page, errors } = await ui.open(core, '#/connect');

    await page.getByLabel('Name').fill('Shop_1');
    await page.getByLabel('Envoy port').fill('70000');
    expect(await page.locator('#name-error').innerText()).toMatch(/lower case letters/);
    expect(await page.locator('#port-error').innerText()).toBe('a port from 1 to 65535');
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Fix the fields marked in the form').waitFor();

    // Valid field by field, but the outbound would listen where the inbound does: the API says so.
    await page.getByLabel('Name').fill('shop-1');
    await page.getByLabel('Envoy port').fill('10001');
    const outboundPort = page.getByLabel('Outbound 1 port');
    await eventually(async () => expect(await outboundPort.getAttribute('aria-invalid')).toBe('true'));
    expect(await page.locator('#outbound\\.1\\.port-error').innerText()).toBe('port 10001 on 127.0.0.1 is already used by networking.inbound[0]');
    expect(errors).toEqual([expect.stringContaining('status of 400 (Bad Request)')]);
    errors.splice(0);

    // Removing and adding outbound rows; the bootstrap is back once the clash is gone.
    await page.getByLabel('Envoy port').fill('18080');
    await page.getByRole('button', { name: 'Remove outbound 1' }).click();
    await page.getByRole('button', { name: '+ Add outbound' }).click();
    await page.getByRole('button', { name: '+ Add outbound' }).click();
    await page.getByLabel('Outbound 1 service').fill('ledger');
    await page.getByLabel('Outbound 2 service').fill('audit');
    const dataplane = await eventually(async () => {
      const parsed = parse(await fileText(page, 'dataplane-shop-1.yaml'));
      expect(parsed.networking.outbound).toEqual([
        { port: 10001, tags: { 'kuma.io/service': 'ledger' } },
        { port: 10002, tags: { 'kuma.io/service': 'audit' } },
      ]);
      return parsed;
    });
    expect(dataplane.networking.inbound[0].port).toBe(18080);
    await eventually(async () => expect(parse(await fileText(page, 'bootstrap-shop-1.yaml')).node.id).toBe('default.shop-1'));
    expect(await outboundPort.getAttribute('aria-invalid')).toBe('false');
  }, ROOM);

  it('gives a gRPC bootstrap that grpc-js-xds accepts, and the proxy started with it shows up live', async () => {
    const core = await ui.core();
    const backend = await startEchoServer('echo-1');
    try {
      await applyDataplane(core, backendDataplane('echo-1', backend.port));
      const { page } = await ui.open(core, '#/connect');
      await page.getByRole('radio', { name: 'Proxyless gRPC' }).click();
      await page.getByLabel('Name').fill('shop-1');
      await page.getByLabel('Service', { exact: true }).fill('');
      await page.getByLabel('Outbound 1 service').fill('echo');

      expect(await page.getByTestId('command').innerText()).toBe('GRPC_XDS_BOOTSTRAP=bootstrap-shop-1.json your-app');
      const bootstrap = await eventually(async () => {
        const parsed = JSON.parse(await fileText(page, 'bootstrap-shop-1.json'));
        // The preview follows the form: wait for the one of the last edit.
        expect(JSON.parse(parsed.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({
          name: 'shop-1',
          networking: { outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }] },
        });
        return parsed;
      });
      expect(validateBootstrapConfig(bootstrap).node.id).toBe('default.shop-1');
      await page.getByTestId('connection').getByText('Waiting for connection…').waitFor();

      const proxy = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) });
      try {
        expect(await proxy.echo('hello', 15_000)).toBe('echo-1: hello');
        const indicator = page.locator('[data-testid=connection][data-phase=acked]');
        await indicator.waitFor();
        expect(await indicator.innerText()).toMatch(/config ACKed \((lds|rds|cds|eds)/);
        expect(await indicator.getByRole('link').getAttribute('href')).toBe('#/proxies/default.shop-1');
        // The proxy registered the Dataplane it was given, through its metadata.
        const stored = (await (await fetch(`${core.api.url}/meshes/default/dataplanes/shop-1`)).json()) as { networking: unknown };
        expect(stored.networking).toEqual({ address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }] });
      } finally {
        proxy.close();
      }
    } finally {
      await backend.stop();
    }
  }, ROOM);
});
