import { status } from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import type { AuthCallbacks } from '../../src/main/xds/callbacks/auth.js';
import { DATAPLANE_TOKEN_METADATA_KEY, generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import type { Node } from '../../src/main/xds/protocol/ads-service.js';
import { decodeResource } from '../../src/main/xds/protocol/decode.js';
import { CLUSTER_TYPE_URL, SECRET_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane } from '../support/dataplanes.js';
import { echoClient, startEchoServer } from '../support/echo-server.js';
import { registerGrpcXds } from '../support/grpc-xds.js';
import { putResource } from '../support/put-resource.js';
import type { ProxyStatus } from '../../src/shared/api-types.js';
import type { MeshResource } from '../../src/shared/resources.js';

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

async function coreWithTwoDataplanes(tokens: 'enabled' | 'disabled' | 'mtls-meshes'): Promise<Core> {
  const core = await startTestCore();
  await applyDataplane(core, backendDataplane('backend-1', 18080));
  await applyDataplane(core, clientDataplane('web-1'));
  core.settings.update({ 'xds.dataplaneTokens': tokens });
  return core;
}

const SECRETS = ['identity_cert:secret:default', 'mesh_ca:secret:default'];
const MTLS = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };

async function putDefaultMesh(core: Core, mtls?: object): Promise<void> {
  await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', ...(mtls && { mtls }) });
}

/** The token the bootstrap meshdesk gives for the Dataplane carries: what a user's proxy sends. */
async function bootstrapToken(core: Core, name: string): Promise<unknown> {
  const response = await fetch(`${core.api.url}/meshes/default/dataplanes/${name}/bootstrap?proxyType=grpc`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { node: { metadata: Record<string, unknown> } }).node.metadata[DATAPLANE_TOKEN_METADATA_KEY];
}

/** Asks for the mesh's two secrets and resolves with the private key sent, if one is. */
async function privateKeySent(client: RawAdsClient): Promise<string | undefined> {
  client.send(SECRET_TYPE_URL, { names: SECRETS });
  const response = await client.next();
  const identity = response.resources.map(decodeResource).find((secret) => secret.name === SECRETS[0]);
  const key = (identity?.tls_certificate as { private_key?: { inline_bytes?: string } } | undefined)?.private_key?.inline_bytes;
  return key === undefined ? undefined : Buffer.from(key, 'base64').toString();
}

async function proxyStatus(core: Core, proxyId: string): Promise<ProxyStatus | undefined> {
  const { items } = (await (await fetch(`${core.api.url}/proxies`)).json()) as { items: ProxyStatus[] };
  return items.find((item) => item.proxyId === proxyId);
}

describe('Dataplane tokens in a mesh with mTLS (on by default there)', () => {
  it('a process connecting as default.dp-2 without its token gets no private key: its stream is refused with the reason, shown as refused', async () => {
    const core = await startTestCore();
    await putDefaultMesh(core, MTLS);
    await applyDataplane(core, backendDataplane('dp-2', 18080));

    const impostor = proxy(core, 'dp-2');
    impostor.send(SECRET_TYPE_URL, { names: SECRETS });

    const refusal = await impostor.status;
    expect(refusal).toMatchObject({
      code: status.UNAUTHENTICATED,
      details:
        'proxy "default.dp-2" cannot connect: it sent no token, and Dataplane "dp-2" in mesh "default" requires one. ' +
        'mesh "default" has mTLS on, so its proxies are sent private keys (xds.dataplaneTokens: mtls-meshes), so a proxy must send its ' +
        'Dataplane\'s token in node metadata "meshdesk.token": use the bootstrap meshdesk gives for it (GET /meshes/<mesh>/dataplanes/<name>/bootstrap, or Connect a proxy)',
    });
    expect(core.xds.identities.status('default.dp-2')).toBeUndefined();
    expect(await proxyStatus(core, 'default.dp-2')).toMatchObject({
      state: 'refused',
      refusal: { by: 'control-plane', code: status.UNAUTHENTICATED, codeName: 'UNAUTHENTICATED', message: refusal.details },
    });
    const guessed = proxy(core, 'dp-2', 'a-guess');
    guessed.send(SECRET_TYPE_URL, { names: SECRETS });
    expect(await guessed.status).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringContaining('its token is not the one issued for Dataplane "dp-2"') });
  });

  it('the proxy started with the bootstrap meshdesk gives (its token inside) gets its identity and private key', async () => {
    const core = await startTestCore();
    await putDefaultMesh(core, MTLS);
    await applyDataplane(core, backendDataplane('dp-2', 18080));

    const owner = proxy(core, 'dp-2', await bootstrapToken(core, 'dp-2'));
    const key = await privateKeySent(owner);

    expect(key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(core.xds.identities.status('default.dp-2')).toMatchObject({ uris: expect.arrayContaining(['spiffe://default/echo']) });
  });

  it('a mesh without mTLS keeps connecting proxies without a token; turning mTLS on disconnects those, and keeps the one with its token', async () => {
    const core = await coreWithTwoDataplanes('mtls-meshes');
    const untokened = proxy(core, 'web-1');
    const tokened = proxy(core, 'backend-1', await bootstrapToken(core, 'backend-1'));
    await Promise.all([served(untokened), served(tokened)]);

    await putDefaultMesh(core, MTLS);

    expect(await untokened.status).toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringMatching(/^proxy "default\.web-1" was disconnected: it sent no token, .* mesh "default" has mTLS on/),
    });
    expect(await privateKeySent(tokened)).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(core.xds.server.streams().map((stream) => stream.nodeId)).toEqual(['default.backend-1']);
  });

  it('no identity is issued to a proxy that has not proven it is its Dataplane, even before its stream is checked again', async () => {
    const core = await coreWithTwoDataplanes('mtls-meshes');
    const untokened = proxy(core, 'web-1');
    const tokened = proxy(core, 'backend-1', await bootstrapToken(core, 'backend-1'));
    await Promise.all([served(untokened), served(tokened)]);
    const auth = core.xds.chain.find((link) => link.name === 'auth')!.callbacks as AuthCallbacks;
    // The mesh as a generator may read it a moment before the mesh's change is followed.
    const mtlsMesh = { ...(await core.manager.get('Mesh', { mesh: '', name: 'default' })), spec: { mtls: MTLS } } as MeshResource;

    expect(() => auth.assertOwner('default.web-1', mtlsMesh)).toThrow(
      'no private key is sent to proxy "default.web-1": it sent no token, and Dataplane "web-1" in mesh "default" requires one; mesh "default" has mTLS on',
    );
    expect(() => auth.assertOwner('default.backend-1', mtlsMesh)).not.toThrow();
    expect(() => auth.assertOwner('default.gone-1', mtlsMesh)).toThrow('it holds no stream');
  });
});

describe('per-Dataplane tokens', () => {
  it('are not required by default in a mesh without mTLS: a local proxy connects without one', async () => {
    const core = await coreWithTwoDataplanes('mtls-meshes');
    expect(core.settings.describe().find((setting) => setting.name === 'xds.dataplaneTokens')).toMatchObject({
      default: 'mtls-meshes',
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
      details: expect.stringMatching(/^proxy "default\.backend-1" cannot connect: it sent no token, .*xds\.dataplaneTokens is enabled, .*node metadata "meshdesk\.token"/),
    });
    expect(await wrong.status).toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('its token is not the one issued for Dataplane "backend-1" in mesh "default"'),
    });
    expect(await notIssued.status).toMatchObject({
      code: status.UNAUTHENTICATED,
      details: expect.stringContaining('its token is not the one issued for Dataplane "web-1" in mesh "default"'),
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
      details: expect.stringContaining('proxy "default.backend-1" was disconnected: the token of Dataplane "backend-1" in mesh "default" is revoked'),
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
