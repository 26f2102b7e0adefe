import '../support/grpc-js-xds-rbac.js';
import * as grpc from '@grpc/grpc-js';
import { XdsChannelCredentials } from '@grpc/grpc-js-xds';
import { readFileSync } from 'node:fs';
import { validateBootstrapConfig } from '@grpc/grpc-js-xds/build/src/xds-bootstrap.js';
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import type { Core } from '../../src/main/core.js';
import { DATAPLANE_METADATA_KEY, DATAPLANE_TOKEN_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { encodeMessage } from '../../src/main/xds/protocol/encode.js';
import { applyDataplane, backendDataplane, grpcBootstrapOf } from '../support/dataplanes.js';
import { echoClient, startEchoServer } from '../support/echo-server.js';
import { eventually } from '../support/eventually.js';
import { putResource } from '../support/put-resource.js';
import { allowAllTraffic } from '../support/traffic-permissions.js';
import { freePort, startXdsEchoServer } from '../support/xds-echo-server.js';
import { editorText } from './support/editor.js';
import { useUi } from './support/ui-fixture.js';
import { registerGrpcXds } from '../support/grpc-xds.js';

await registerGrpcXds();
const ui = useUi();

// Chromium, a core and real xDS clients on a shared 2-core machine: a bound for hung tests, not a timing assertion.
const ROOM = 90_000;

/** The proxyless client of the echo service that the gRPC tests fill in. */
async function fillEchoClient(page: Page, name: string): Promise<void> {
  await page.getByRole('radio', { name: 'Proxyless gRPC' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Service', { exact: true }).fill('');
  await page.getByLabel('Outbound 1 service').fill('echo');
}

/** The echo backend `echo-1`, stored as a Dataplane of service `echo`, for as long as `run` runs. */
async function withEchoBackend(core: Core, run: () => Promise<void>): Promise<void> {
  const backend = await startEchoServer('echo-1');
  try {
    await applyDataplane(core, backendDataplane('echo-1', backend.port));
    await run();
  } finally {
    await backend.stop();
  }
}

/** A proxyless client started with `bootstrap` calls echo through xDS, then `run` looks further; it is closed after. */
async function echoThrough(bootstrap: unknown, run: () => Promise<void>): Promise<void> {
  const proxy = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) });
  try {
    expect(await proxy.echo('hello', 15_000)).toBe('echo-1: hello');
    await run();
  } finally {
    proxy.close();
  }
}

/** The whole text of a file panel's (read-only) editor, from its model, once it shows one. */
function fileText(page: Page, filename: string): Promise<string> {
  return editorText(page.locator(`[data-file="${filename}"]`));
}

/** The whole file as its Save button gives it. */
async function savedText(page: Page, filename: string): Promise<string> {
  const saving = page.waitForEvent('download');
  await page.locator(`[data-file="${filename}"]`).getByRole('button', { name: 'Save' }).click();
  const download = await saving;
  expect(download.suggestedFilename()).toBe(filename);
  return readFileSync(await download.path(), 'utf8');
}

describe('Connect a proxy view', () => {
  it("shows the kuma-dp command with meshdesk's CA file, for the Dataplane file it offers", async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/connect');
    await page.getByLabel('Name').fill('web-1');
    const hint = page.getByTestId('kuma-dp-command');
    await eventually(async () =>
      expect(await hint.innerText()).toContain(
        `kuma-dp run --cp-address https://127.0.0.1:${core.xds.port} --dataplane-file dataplane-web-1.yaml --ca-cert-file ${core.controlPlaneCert.certFile}`,
      ),
    );
  }, ROOM);

  it('gives an Envoy bootstrap carrying the Dataplane, and stores nothing', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/connect');

    await page.getByLabel('Name').fill('shop-1');
    await page.getByLabel('Service', { exact: true }).fill('shop');

    expect(await page.getByTestId('command').innerText()).toBe('envoy -c bootstrap-shop-1.yaml');
    // The preview follows the form: wait for the one of the last edit (the service), not of the name.
    await eventually(async () => {
      const parsed = parse(await fileText(page, 'bootstrap-shop-1.yaml'));
      expect(parsed.node.id).toBe('default.shop-1');
      expect(JSON.parse(parsed.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({
        networking: { inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'shop', 'kuma.io/protocol': 'http' } }] },
      });
    });
    const bootstrap = parse(await savedText(page, 'bootstrap-shop-1.yaml'));
    expect(bootstrap.node.id).toBe('default.shop-1');
    expect(() => encodeMessage('envoy.config.bootstrap.v3.Bootstrap', bootstrap)).not.toThrow();
    // No token is required in a mesh without mTLS (the default), so nothing is said about one; the
    // bootstrap carries the Dataplane's all the same, so it still lets the proxy in once mTLS is on.
    expect(bootstrap.node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toMatch(/^[\w-]{43}$/);
    expect(await page.getByTestId('token').count()).toBe(0);
    expect(parse(await fileText(page, 'dataplane-shop-1.yaml'))).toMatchObject({ type: 'Dataplane', name: 'shop-1' });
    expect(await page.getByTestId('connection').innerText()).toContain('Waiting for connection');
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/shop-1`)).status).toBe(404);
  }, ROOM);

  it('offers SotW or delta for an Envoy bootstrap, and SotW only for proxyless gRPC', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/connect');
    await page.getByLabel('Name').fill('shop-1');
    const protocol = page.getByRole('radiogroup', { name: 'xDS protocol' });

    await eventually(async () => expect(parse(await fileText(page, 'bootstrap-shop-1.yaml')).dynamic_resources.ads_config.api_type).toBe('GRPC'));
    await protocol.getByRole('radio', { name: 'Delta' }).click();
    await eventually(async () => expect(parse(await fileText(page, 'bootstrap-shop-1.yaml')).dynamic_resources.ads_config.api_type).toBe('DELTA_GRPC'));
    const bootstrap = parse(await savedText(page, 'bootstrap-shop-1.yaml'));
    expect(bootstrap.dynamic_resources.ads_config.api_type).toBe('DELTA_GRPC');
    expect(() => encodeMessage('envoy.config.bootstrap.v3.Bootstrap', bootstrap)).not.toThrow();

    // gRPC's own xDS clients: SotW, delta shown and disabled with the reason.
    await page.getByRole('radiogroup', { name: 'Kind' }).getByRole('radio', { name: 'Proxyless gRPC' }).click();
    await eventually(async () => expect(JSON.parse(await fileText(page, 'bootstrap-shop-1.json')).node.id).toBe('default.shop-1'));
    expect(await protocol.getByRole('radio', { name: 'SotW' }).getAttribute('aria-checked')).toBe('true');
    const delta = protocol.getByRole('radio', { name: 'Delta' });
    expect(await delta.isDisabled()).toBe(true);
    expect(await delta.getAttribute('title')).toBe("gRPC's xDS clients speak State of the World only");
  });

  it('gives each Envoy an admin port of its own, shown in an editable field and written into the Dataplane', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/connect');
    await page.getByLabel('Name').fill('shop-1');

    // The admin section is the bootstrap's last: read the whole file, not the editor's drawn lines.
    const picked = await eventually(async () => {
      const parsed = parse(await savedText(page, 'bootstrap-shop-1.yaml'));
      const port = parsed.admin.address.socket_address.port_value as number;
      const dataplane = JSON.parse(parsed.node.metadata[DATAPLANE_METADATA_KEY]);
      // The bootstrap of the name typed, not of the form's name before it.
      expect(dataplane.name).toBe('shop-1');
      expect(dataplane.networking.admin).toEqual({ port });
      return port;
    });
    expect(picked).not.toBe(9901);
    await eventually(async () => expect(await page.getByLabel('Admin port').getAttribute('placeholder')).toBe(`${picked} (automatic)`));
    await eventually(async () => expect(parse(await fileText(page, 'dataplane-shop-1.yaml')).networking.admin).toEqual({ port: picked }));

    await page.getByLabel('Admin port').fill('9950');
    await eventually(async () => {
      const parsed = parse(await savedText(page, 'bootstrap-shop-1.yaml'));
      expect(parsed.admin.address.socket_address.port_value).toBe(9950);
      expect(JSON.parse(parsed.node.metadata[DATAPLANE_METADATA_KEY]).networking.admin).toEqual({ port: 9950 });
    });
    await page.getByLabel('Admin port').fill('99999');
    await page.getByText('a port from 1 to 65535').waitFor();
  });

  it('starts a proxyless gRPC server from its preset: the inbound port is the port the server listens on', async () => {
    const core = await ui.core();
    const { page } = await ui.open(core, '#/connect');
    await page.getByRole('group', { name: 'Start from' }).getByRole('button', { name: 'gRPC server' }).click();

    expect(await page.getByRole('radio', { name: 'Proxyless gRPC' }).getAttribute('aria-checked')).toBe('true');
    await page.getByTestId('grpc-server-hint').getByText('the port your server listens on').waitFor();
    expect(await page.getByLabel('Admin port').count()).toBe(0);
    await eventually(async () => {
      const parsed = JSON.parse(await fileText(page, 'bootstrap-greeter-1.json'));
      expect(JSON.parse(parsed.node.metadata[DATAPLANE_METADATA_KEY]).networking).toEqual({
        address: '127.0.0.1',
        inbound: [{ port: 50051, tags: { 'kuma.io/service': 'greeter', 'kuma.io/protocol': 'grpc' } }],
      });
    });
  });

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
    await withEchoBackend(core, async () => {
      const { page } = await ui.open(core, '#/connect');
      await fillEchoClient(page, 'shop-1');

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

      await echoThrough(bootstrap, async () => {
        const indicator = page.locator('[data-testid=connection][data-phase=acked]');
        await indicator.waitFor();
        expect(await indicator.innerText()).toMatch(/config ACKed \((lds|rds|cds|eds)/);
        expect(await indicator.getByRole('link').getAttribute('href')).toBe('#/proxies/default.shop-1');
        // The proxy registered the Dataplane it was given, through its metadata.
        const stored = (await (await fetch(`${core.api.url}/meshes/default/dataplanes/shop-1`)).json()) as { networking: unknown };
        expect(stored.networking).toEqual({ address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }] });
      });
    });
  }, ROOM);

  it('in a mesh with mTLS, the bootstrap carries the Dataplane’s token by itself: the proxy started with it calls over mTLS', async () => {
    const core = await ui.core();
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } });
    await allowAllTraffic(core);
    const port = await freePort();
    await applyDataplane(core, backendDataplane('echo-1', port));
    const server = await startXdsEchoServer('echo-1', port, await grpcBootstrapOf(core, 'echo-1'));
    onTestFinished(() => server.stop());
    const { page } = await ui.open(core, '#/connect');
    await fillEchoClient(page, 'shop-1');

    const notice = page.getByTestId('token');
    await notice.getByText("meshdesk requires the Dataplane's token in mesh default, which has mTLS on.").waitFor();
    // The preview of the last edit (the outbound), with nothing issued by hand.
    const bootstrap = await eventually(async () => {
      const parsed = JSON.parse(await savedText(page, 'bootstrap-shop-1.json'));
      expect(JSON.parse(parsed.node.metadata[DATAPLANE_METADATA_KEY]).networking.outbound).toEqual([{ port: 10001, tags: { 'kuma.io/service': 'echo' } }]);
      return parsed;
    });
    const token = (await (await fetch(`${core.api.url}/meshes/default/dataplanes/shop-1/token`)).text()).trim();
    expect(bootstrap.node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(token);
    expect(await notice.getByTestId('token-state').innerText()).toBe('This bootstrap carries the token of default/shop-1 in node metadata meshdesk.token: the proxy started with it is let in. Keep the file private.');

    const proxy = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) }, new XdsChannelCredentials(grpc.credentials.createInsecure()));
    onTestFinished(() => proxy.close());
    expect(await eventually(() => proxy.echo('hello'))).toMatch(/^echo-1: hello from URI:spiffe:\/\/default\/shop-1/);
    await page.locator('[data-testid=connection][data-phase=acked]').waitFor();
  }, ROOM);

  it('shows a refused token at the token notice, and drops a token issued here when the form names another Dataplane', async () => {
    const core = await ui.core();
    core.settings.update({ 'xds.dataplaneTokens': 'enabled' });
    const { page, errors } = await ui.open(core, '#/connect');
    await page.getByLabel('Name').fill('shop-1');
    await page.getByTestId('token').getByText("meshdesk requires the Dataplane's token from every proxy.").waitFor();
    // The whole file: the gRPC bootstrap (certificate providers included) is longer than the lines the editor draws.
    const tokenIn = async (file: string) => parse(await savedText(page, file)).node.metadata[DATAPLANE_TOKEN_METADATA_KEY] as string | undefined;
    const tokenOf = async (name: string) => (await (await fetch(`${core.api.url}/meshes/default/dataplanes/${name}/token`)).text()).trim();
    const own = await tokenOf('shop-1');
    await eventually(async () => expect(await tokenIn('bootstrap-shop-1.yaml')).toBe(own));

    // Issued from the view (from the keyboard): the bootstrap carries the new one.
    const issue = page.getByRole('button', { name: 'Issue a new token' });
    expect(await page.locator(`#${await issue.getAttribute('aria-describedby')}`).innerText()).toBe('A new token disconnects a proxy using the old one.');
    await issue.focus();
    await page.keyboard.press('Enter');
    const first = await eventually(async () => {
      const token = await tokenIn('bootstrap-shop-1.yaml');
      expect(token).not.toBe(own);
      return token;
    });
    expect(first).toBe(await tokenOf('shop-1'));

    // Replaced from elsewhere (the API, another window): the next preview is refused, at the token.
    expect((await fetch(`${core.api.url}/meshes/default/dataplanes/shop-1/token`, { method: 'POST' })).status).toBe(201);
    await page.getByRole('radio', { name: 'Proxyless gRPC' }).click();
    const refusal = page.locator('#token-error');
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(/^the token is not the one issued for /);
    await page.getByText('The API refused the token: issue a new one.').waitFor();
    // The notice no longer says the bootstrap carries a token.
    expect(await page.getByTestId('token-state').innerText()).toMatch(/^Without it the proxy is refused/);
    expect(await page.getByRole('button', { name: 'Issue a new token' }).getAttribute('aria-describedby')).toBe('token-warning token-error');
    expect(errors).toEqual([expect.stringContaining('status of 400 (Bad Request)')]);
    errors.splice(0);

    // A new one from the view: the bootstrap is back, carrying it.
    await page.getByRole('button', { name: 'Issue a new token' }).click();
    const second = await eventually(async () => {
      const token = await tokenIn('bootstrap-shop-1.json');
      expect(token).toEqual(expect.any(String));
      return token;
    });
    expect(second).not.toBe(first);
    expect(await refusal.count()).toBe(0);

    // Another name: the bootstrap carries that Dataplane's own token; back to the first, the one it has now.
    await page.getByLabel('Name').fill('shop-2');
    await eventually(async () => expect(await tokenIn('bootstrap-shop-2.json')).toBe(await tokenOf('shop-2')));
    await page.getByLabel('Name').fill('shop-1');
    await eventually(async () => expect(await tokenIn('bootstrap-shop-1.json')).toBe(second));
  }, ROOM);
});
