import { status } from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { DATAPLANE_METADATA_KEY, DATAPLANE_TOKEN_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import type { Node } from '../../src/main/xds/protocol/ads-service.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { backendDataplane } from '../support/dataplanes.js';

/** A universal-flow proxy: its Dataplane (`dataplane`, default: its own) travels in node metadata. */
function proxy(core: Core, nodeId: string, dataplane: object, extraMetadata: Record<string, unknown> = {}): RawAdsClient {
  const node: Node = { id: nodeId, metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane), ...extraMetadata } };
  const client = new RawAdsClient(core.xds.port, node);
  onTestFinished(() => client.close());
  client.send(CLUSTER_TYPE_URL);
  return client;
}

async function coreWithRegisteredBackend(): Promise<{ core: Core; owner: RawAdsClient; stored: unknown }> {
  const core = await startTestCore();
  core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
  const owner = proxy(core, 'default.backend-1', backendDataplane('backend-1', 18080, 'backend'));
  await owner.next();
  const stored = await core.manager.get('Dataplane', { mesh: 'default', name: 'backend-1' });
  return { core, owner, stored };
}

describe('proxy identity', () => {
  it('refuses a second stream with a live proxy\'s node id (ALREADY_EXISTS) and leaves its Dataplane alone', async () => {
    const { core, owner, stored } = await coreWithRegisteredBackend();

    const impostor = proxy(core, 'default.backend-1', backendDataplane('backend-1', 19999, 'stolen'));

    expect(await impostor.status).toMatchObject({
      code: status.ALREADY_EXISTS,
      details: expect.stringMatching(/^proxy default\.backend-1 is already connected on another stream .*give this one its own node id$/),
    });
    expect(await core.manager.get('Dataplane', { mesh: 'default', name: 'backend-1' })).toEqual(stored);
    expect(core.xds.server.streams().map((stream) => stream.nodeId)).toEqual(['default.backend-1']);
    owner.send(LISTENER_TYPE_URL); // the owner is still served
    expect((await owner.next()).type_url).toBe(LISTENER_TYPE_URL);
  });

  it('refuses a proxy that brings, under its own node id, the Dataplane of another (INVALID_ARGUMENT), writing nothing', async () => {
    const { core, stored } = await coreWithRegisteredBackend();

    const impostor = proxy(core, 'default.web-1', backendDataplane('backend-1', 19999, 'stolen'));

    expect(await impostor.status).toMatchObject({
      code: status.INVALID_ARGUMENT,
      details: expect.stringContaining('name: "backend-1" does not match node id "default.web-1": must be "web-1"'),
    });
    expect(await core.manager.get('Dataplane', { mesh: 'default', name: 'backend-1' })).toEqual(stored);
    expect(await core.manager.list('Dataplane')).toHaveLength(1);
  });

  it('with tokens enabled, a proxy without the Dataplane\'s token cannot take it over even once its owner has left', async () => {
    const core = await startTestCore();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate', 'xds.dataplaneTokens': 'enabled' });
    const token = core.xds.dataplaneTokens.issue({ mesh: 'default', name: 'backend-1' }).token;
    const owner = proxy(core, 'default.backend-1', backendDataplane('backend-1', 18080, 'backend'), { [DATAPLANE_TOKEN_METADATA_KEY]: token });
    await owner.next();
    const stored = await core.manager.get('Dataplane', { mesh: 'default', name: 'backend-1' });
    owner.close();
    await owner.status;

    const impostor = proxy(core, 'default.backend-1', backendDataplane('backend-1', 19999, 'stolen'), { [DATAPLANE_TOKEN_METADATA_KEY]: 'guess' });

    expect((await impostor.status).code).toBe(status.UNAUTHENTICATED);
    expect(await core.manager.get('Dataplane', { mesh: 'default', name: 'backend-1' })).toEqual(stored);
  });
});
