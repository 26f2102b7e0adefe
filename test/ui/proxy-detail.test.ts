import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DATAPLANE_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { putResource } from '../support/put-resource.js';
import { waitForEditorText } from './support/editor.js';
import { callerSpec } from './support/grpc-proxy.js';
import { useUi } from './support/ui-fixture.js';

const ui = useUi();

/** The port a backend Dataplane is moved to; nothing needs to listen there for the config to change. */
const MOVED_PORT = 18999;

describe('Proxy detail view', () => {
  it('shows the config of a real grpc-js-xds proxy as a tree whose references jump, with search, raw views and a download', async () => {
    const core = await ui.core();
    const backend = await ui.frontendCallingEcho(core);
    const { page } = await ui.open(core, '#/proxies/default.frontend-1/config');

    // The header: online, its kind and every type ACKed.
    const types = page.getByTestId('proxy-types');
    await types.locator('[data-xds-state=ack]').nth(3).waitFor();
    expect(await page.getByTestId('proxy-kind').innerText()).toBe('proxyless gRPC');
    expect(await page.locator('main header').first().innerText()).toContain('online');

    // listener → route → cluster → endpoints, each a click away.
    const tree = page.getByTestId('config-tree');
    await tree.locator('[data-resource="lds/echo"]').waitFor();
    await tree.locator('[data-resource="lds/echo"] header').getByTitle('Go to rds/echo').click();
    await eventually(async () => expect(await page.locator('[data-resource]:has(:focus)').getAttribute('data-resource')).toBe('rds/echo'));
    // The cluster name inside the route is a link too.
    await tree.locator('[data-resource="rds/echo"] .tree [data-link="cds/echo"]').click();
    await eventually(async () => expect(await page.locator('[data-resource]:has(:focus)').getAttribute('data-resource')).toBe('cds/echo'));
    await tree.locator('[data-resource="cds/echo"] header').getByTitle('Go to eds/echo').click();
    await eventually(async () => expect(await page.locator('[data-resource]:has(:focus)').getAttribute('data-resource')).toBe('eds/echo'));

    // Search filters to the resources that match and marks the match.
    await page.getByLabel('Search configuration').fill(String(backend.port));
    await eventually(async () => expect(await tree.locator('[data-resource]').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-resource')))).toEqual(['eds/echo']));
    expect(await tree.locator('mark').first().innerText()).toBe(String(backend.port));

    // Raw JSON: Envoy's dump, filtered the same way.
    await page.getByRole('radio', { name: 'JSON' }).click();
    await page.getByTestId('code-view').getByText('EndpointsConfigDump').waitFor();
    await page.getByLabel('Search configuration').fill('');
    await page.getByRole('radio', { name: 'YAML' }).click();
    await page.getByTestId('code-view').getByText('ClustersConfigDump').waitFor();

    // The download is the whole dump, named after the proxy and its version.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^default\.frontend-1-config_dump-v\d+\.json$/);
    const dump = JSON.parse(readFileSync(await download.path(), 'utf8')) as { configs: { '@type': string }[] };
    expect(dump.configs.map((config) => config['@type'].split('.').at(-1))).toEqual([
      'ClustersConfigDump',
      'EndpointsConfigDump',
      'ListenersConfigDump',
      'RoutesConfigDump',
    ]);
  });

  it('diffs the latest version against the previous one, field by field, after a change made in the Resources view', async () => {
    const core = await ui.core();
    const backend = await ui.frontendCallingEcho(core);
    const { page } = await ui.open(core, '#/proxies/default.frontend-1/config');
    await page.getByTestId('proxy-types').locator('[data-xds-state=ack]').nth(3).waitFor();

    // `2` switches to History, as the tab bar says.
    await page.locator('main').focus();
    await page.keyboard.press('2');
    await eventually(async () => expect(new URL(page.url()).hash).toBe('#/proxies/default.frontend-1/history'));
    await page.locator('[data-snapshot]').first().waitFor();
    const before = await page.locator('[data-snapshot]').count();

    // The backend moves to another port, edited in the Resources view of a second window.
    const resources = (await ui.open(core, '#/resources/dataplane/default/echo-1')).page;
    const editor = resources.locator('.cm-content');
    const moved = (await waitForEditorText(resources, `port: ${backend.port}`)).replace(`port: ${backend.port}`, `port: ${MOVED_PORT}`);
    await editor.click();
    await resources.keyboard.press('ControlOrMeta+A');
    await resources.keyboard.insertText(moved);
    await resources.keyboard.press('ControlOrMeta+S');
    await resources.getByTestId('editor-notice').getByText('version 2').waitFor();

    // The history shows the new version live, and the default diff (latest against previous) names the one field.
    await eventually(async () => expect(await page.locator('[data-snapshot]').count()).toBe(before + 1));
    const change = page.locator('[data-diff="eds/echo"] [data-path$="socket_address.port_value"]');
    await change.waitFor();
    expect(await page.locator('[data-diff]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-diff')))).toEqual(['eds/echo']);
    expect(await change.getAttribute('data-path')).toBe('endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value');
    expect(await change.locator('.old').innerText()).toBe(String(backend.port));
    expect(await change.locator('.new').innerText()).toBe(String(MOVED_PORT));

    // Any two versions: the first against itself is no change at all.
    const first = page.locator('[data-snapshot]').last();
    await first.getByRole('radio', { name: /Compare to/ }).check();
    await first.getByRole('radio', { name: /Compare from/ }).check();
    await page.getByText('The two versions are identical.').waitFor();
  }, 90_000); // two pages, a core and a real xDS client on a shared 2-core machine: a bound for a hung test, nothing timed

  it("draws the proxy's timeline live, with the first-config breakdown naming the wait's cause", async () => {
    const core = await ui.core();
    await ui.frontendCallingEcho(core);
    const { page } = await ui.open(core, '#/proxies/default.frontend-1/timeline');

    await eventually(async () => expect(await page.getByTestId('first-config-total').innerText()).toMatch(/^\d+(\.\d+)? (µs|ms|s)$/));
    expect(await page.getByTestId('wait-cause').innerText()).toMatch(/^waited .+ for cache expiration \(strategy: sleep\)$/);

    const events = page.getByTestId('timeline-events');
    await events.locator('tr[data-event=ack]').nth(3).waitFor();
    const kinds = await events.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event')));
    expect(kinds.slice(0, 5)).toEqual(['stream-opened', 'registered', 'post-create-wait-started', 'post-create-wait', 'tick']);

    // A change after the page loaded arrives as live events: a new generation, response and ACK.
    const acks = await events.locator('tr[data-event=ack]').count();
    await applyDataplane(core, backendDataplane('echo-1', MOVED_PORT));
    await eventually(async () => expect(await events.locator('tr[data-event=ack]').count()).toBeGreaterThan(acks));
    expect(await events.locator('tr.tick-changed').count()).toBeGreaterThanOrEqual(2);
    // In time order, even within one millisecond: the tick that generated the change comes before
    // the response it caused, though it was recorded after it.
    await eventually(async () => {
      const rows = await events.locator('tbody tr').evaluateAll((each) =>
        each.map((row) => ({ kind: `${row.getAttribute('data-event')} ${row.getAttribute('class')?.split(' ')[0]}`, at: Number(row.getAttribute('data-at')), seq: Number(row.getAttribute('data-seq')) })),
      );
      const outOfOrder = rows.filter((row, index) => index > 0 && row.at < rows[index - 1]!.at);
      expect(outOfOrder, JSON.stringify(rows)).toEqual([]);
      const lastChange = rows.findLastIndex((row) => row.kind === 'tick tick-changed');
      const recordedBefore = rows.slice(lastChange + 1).filter((row) => row.seq < rows[lastChange]!.seq);
      expect(recordedBefore.length, 'a response recorded before the change tick is listed after it').toBeGreaterThan(0);
    });
  });

  it('shows the bootstrap with the command to run it, for Envoy and for proxyless gRPC, and switches tabs with arrow keys', async () => {
    const core = await ui.core();
    // A backend to call, so that the proxy is sent a listener, which tells its kind.
    await applyDataplane(core, backendDataplane('echo-1', 18000));
    ui.connect(core, { name: 'frontend-1', target: 'echo', register: callerSpec('frontend') });
    const { page } = await ui.open(core, '#/proxies/default.frontend-1/timeline');
    await page.getByTestId('proxy-kind').waitFor();

    await page.locator('main').focus();
    await page.keyboard.press('ArrowRight');
    await eventually(async () => expect(new URL(page.url()).hash).toBe('#/proxies/default.frontend-1/bootstrap'));

    // It connected as gRPC's xDS client, so its bootstrap is gRPC's.
    await waitForEditorText(page.getByTestId('code-view'), '"xds_servers"');
    expect(await page.getByTestId('bootstrap-command').innerText()).toBe('GRPC_XDS_BOOTSTRAP=$PWD/bootstrap-frontend-1.json <your gRPC app>');
    // gRPC's xDS clients speak State of the World only: delta is shown, not offered.
    const protocol = page.getByRole('radiogroup', { name: 'xDS protocol' });
    expect(await protocol.getByRole('radio', { name: 'SotW' }).getAttribute('aria-checked')).toBe('true');
    expect(await protocol.getByRole('radio', { name: 'Delta' }).isDisabled()).toBe(true);

    await page.getByRole('radio', { name: 'Envoy' }).click();
    await waitForEditorText(page.getByTestId('code-view'), 'api_type: GRPC\n');
    expect(await page.getByTestId('bootstrap-command').innerText()).toBe('envoy -c bootstrap-frontend-1.yaml');
    // Envoy speaks either: delta asks for DELTA_GRPC.
    await protocol.getByRole('radio', { name: 'Delta' }).click();
    await waitForEditorText(page.getByTestId('code-view'), 'api_type: DELTA_GRPC\n');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('bootstrap-frontend-1.yaml');
    expect(readFileSync(await download.path(), 'utf8')).toContain('id: default.frontend-1');
  });
});

describe('History names what changed besides policies', () => {
  it('names the Mesh change that turned mTLS on and the Dataplane another proxy registered', async () => {
    const core = await ui.core();
    await ui.frontendCallingEcho(core);
    const { page } = await ui.open(core, '#/proxies/default.frontend-1/history');
    await page.locator('[data-snapshot]').first().waitFor();

    // Another proxy registers a second echo endpoint through its metadata: frontend's endpoints change.
    const echo2 = backendDataplane('echo-2', 18012);
    const other = new RawAdsClient(core.xds.port, { id: 'default.echo-2', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(echo2) } });
    onTestFinished(() => other.close());
    other.send(LISTENER_TYPE_URL);
    await page.locator('[data-snapshot] [data-policy-change]', { hasText: 'Dataplane echo-2 created by proxy default.echo-2' }).waitFor();

    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] } });
    const change = page.locator('[data-snapshot] [data-policy-change]', { hasText: /^Mesh default v\d+ → v\d+: mTLS on \(ca-1\)$/ });
    await change.first().waitFor();
    // The comparison names it too, with a link to the Mesh.
    await change.first().click();
    await page.locator('li[data-policy-change] a', { hasText: 'mTLS on (ca-1)' }).waitFor();
    expect(await page.locator('li[data-policy-change] a', { hasText: 'mTLS on (ca-1)' }).first().getAttribute('href')).toBe('#/resources/mesh/default');
  });
});
