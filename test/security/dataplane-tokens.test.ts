import { status } from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { DATAPLANE_TOKEN_METADATA_KEY, generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import type { Node } from '../../src/main/xds/protocol/ads-service.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane } from '../support/dataplanes.js';
import { echoClient, startEchoServer } from '../support/echo-server.js';
import { registerGrpcXds } from '../support/grpc-xds.js';

await registerGrpcXds();

async function issueToken(core: Core, name: string, mesh = 'default'): Promise<string> {
  const response = await fetch(`${core.api.url}/meshes/${mesh}/dataplanes/${name}/token`, { method: 'POST' });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

/** A proxy whose Dataplane was created via the API, sending `token` (if any) in its node metadata. */
function proxy(core: Core, name: string, token?: unknown): RawAdsClient {
  const node: Node = { id: `default.${name}`, ...(token !== undefined && { metadata: { [DATAPLANE_TOKEN_METADATA_KEY]: token } }) };
  const client = new RawAdsClient(core.xds.port, node);
  onTestFinished(() => client.close());
  return client;
}

/** Asks for every cluster and resolves with the first answer: the stream got past the callbacks chain. */
async function served(client: RawAdsClient): Promise<void> {
  client.send(CLUSTER_TYPE_URL);
  await client.next();
}

async function coreWithTwoDataplanes(tokens: 'enabled' | 'disabled'): Promise<Core> {
  const core = await startTestCore();
  await applyDataplane(core, backendDataplane('backend-1', 18080));
  await applyDataplane(core, clientDataplane('web-1'));
  core.settings.update({ 'xds.dataplaneTokens': tokens });
  return core;
}

describe('per-Dataplane tokens', () => {
  it('are not required by default: a local proxy connects without one', async () => {
    const core = await coreWithTwoDataplanes('disabled');
    expect(core.settings.describe().find((setting) => setting.name === 'xds.dataplaneTokens')).toMatchObject({
      default: 'disabled',
      appliesLive: true,
    });

    await served(proxy(core, 'backend-1'));
  });

  it('when enabled, refuses a proxy without a token or with a wrong one with UNAUTHENTICATED, and serves the right one', async () => {
    const core = await coreWithTwoDataplanes('enabled');
    const token = await issueToken(core, 'backend-1');

    const missing = proxy(core, 'backend-1');
    missing.send(CLUSTER_TYPE_URL);
    const wrong = proxy(core, 'backend-1', `${token}x`);
    wrong.send(CLUSTER_TYPE_URL);
    const notIssued = proxy(core, 'web-1', token); // backend-1's token does not open web-1
    notIssued.send(CLUSTER_TYPE_URL);

    expect(await missing.status).toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringMatching(/^proxy "default\.backend-1" cannot connect: it sent no token, .*node metadata "meshdesk\.token"$/),
    });
    expect(await wrong.status).toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('its token is not the one issued for Dataplane "backend-1" in mesh "default"'),
    });
    expect(await notIssued.status).toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('no token is issued for Dataplane "web-1" in mesh "default": issue one with POST /meshes/default/dataplanes/web-1/token'),
    });
    // Refused before the lifecycle: nothing but the refusal itself (its status) reached the timeline.
    expect(core.xds.timeline.events('default.web-1')).toEqual([
      expect.objectContaining({ kind: 'stream-closed', ending: expect.objectContaining({ by: 'control-plane', code: status.UNAUTHENTICATED }) }),
    ]);

    await served(proxy(core, 'backend-1', token));
  });

  it('revoking a token closes the live stream that used it, and only that one', async () => {
    const core = await coreWithTwoDataplanes('enabled');
    const backend = proxy(core, 'backend-1', await issueToken(core, 'backend-1'));
    const web = proxy(core, 'web-1', await issueToken(core, 'web-1'));
    await Promise.all([served(backend), served(web)]);

    const revoked = await fetch(`${core.api.url}/meshes/default/dataplanes/backend-1/token`, { method: 'DELETE' });

    expect(revoked.status).toBe(200);
    expect(await backend.status).toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('proxy "default.backend-1" was disconnected: no token is issued for Dataplane "backend-1"'),
    });
    expect(core.xds.server.streams().map((stream) => stream.nodeId)).toEqual(['default.web-1']);
  });

  it('issuing a new token replaces the old one: a proxy holding the old one is disconnected and cannot come back with it', async () => {
    const core = await coreWithTwoDataplanes('enabled');
    const old = await issueToken(core, 'backend-1');
    const backend = proxy(core, 'backend-1', old);
    await served(backend);

    const fresh = await issueToken(core, 'backend-1');

    expect(fresh).not.toBe(old);
    expect((await backend.status).code).toBe(status.UNAUTHENTICATED);
    const again = proxy(core, 'backend-1', old);
    again.send(CLUSTER_TYPE_URL);
    expect((await again.status).code).toBe(status.UNAUTHENTICATED);
    await served(proxy(core, 'backend-1', fresh));
  });

  it('enabling the setting live disconnects the proxies that have no valid token and keeps the others', async () => {
    const core = await coreWithTwoDataplanes('disabled');
    const token = await issueToken(core, 'backend-1');
    const backend = proxy(core, 'backend-1', token);
    const web = proxy(core, 'web-1');
    await Promise.all([served(backend), served(web)]);

    core.settings.update({ 'xds.dataplaneTokens': 'enabled' });

    expect((await web.status).code).toBe(status.UNAUTHENTICATED);
    expect(core.xds.server.streams().map((stream) => stream.nodeId)).toEqual(['default.backend-1']);
  });

  it('a real xDS client (grpc-js-xds) connects with the token its generated bootstrap carries', async () => {
    const core = await coreWithTwoDataplanes('enabled');
    core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
    const backend = await startEchoServer('echo-1');
    onTestFinished(() => backend.stop());
    await applyDataplane(core, backendDataplane('echo-1', backend.port));
    const bootstrap = generateGrpcBootstrap({
      nodeId: 'default.web-1',
      adsHost: '127.0.0.1',
      adsPort: core.xds.port,
      locality: {},
      token: await issueToken(core, 'web-1'),
    });
    const client = echoClient('xds:///echo', { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap) });
    onTestFinished(() => client.close());

    expect(await client.echo('hello')).toBe('echo-1: hello');
  });
});
