import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';
import { applyDataplane } from '../../../test/support/dataplanes.js';
import { eventually } from '../../../test/support/eventually.js';
import { DATAPLANE_METADATA_KEY } from '../xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL } from '../xds/protocol/type-urls.js';
import { RawAdsClient } from '../xds/server/testing/raw-ads-client.js';

const WEB_1 = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'web-1',
  labels: { app: 'web' },
  networking: { address: '127.0.0.1', inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'web' } }] },
};

async function startCore() {
  const core = await startTestCore();
  const get = async (path: string) => {
    const response = await fetch(`${core.api.url}${path}`);
    return { status: response.status, body: (await response.json()) as any };
  };
  return { core, get };
}

describe('policy inspection API on a real core', () => {
  it("answers _rules in Kuma's shape, and Kuma's errors for a missing mesh or Dataplane", async () => {
    const { core, get } = await startCore();
    await applyDataplane(core, WEB_1);

    // The default mesh's initial policies (Kuma's mesh-timeout-all-…, …) select every sidecar.
    const { status, body } = await get('/meshes/default/dataplanes/web-1/_rules');
    expect(status).toBe(200);
    expect(body).toMatchObject({ httpMatches: [], resource: { type: 'Dataplane', mesh: 'default', name: 'web-1', labels: expect.objectContaining({ app: 'web', 'kuma.io/origin': 'zone' }) } });
    expect(body.rules.map((rule: { type: string }) => rule.type)).toEqual(['MeshTimeout', 'MeshCircuitBreaker', 'MeshRetry']);
    for (const rule of body.rules) expect(Object.keys(rule)).toEqual(['type', 'toRules', 'toResourceRules', 'fromRules', 'inboundRules', 'warnings']);
    expect(JSON.stringify(body.rules[0].fromRules)).toContain('"name":"mesh-timeout-all-default"');
    expect(await get('/meshes/default/meshtimeouts/mesh-timeout-all-default/_resources/dataplanes')).toMatchObject({
      status: 200,
      body: { total: 1, items: [{ type: 'Dataplane', mesh: 'default', name: 'web-1' }], next: null },
    });
    expect(await get('/meshes/default/dataplanes/ghost/_rules')).toMatchObject({ status: 404, body: { title: 'Could not retrieve Dataplane', detail: 'Not found' } });
    expect(await get('/meshes/nowhere/dataplanes/web-1/_rules')).toMatchObject({ status: 404, body: { title: 'Failed to retrieve Mesh', detail: 'Not found' } });
  });

  it('answers _resources/dataplanes at every policy type path, a 404 for a policy that does not exist', async () => {
    const { get } = await startCore();

    expect(await get('/meshes/default/meshtimeouts/ghost/_resources/dataplanes')).toMatchObject({ status: 404, body: { title: 'Could not retrieve policy' } });
    expect(await get('/meshes/default/meshhttproutes/ghost/_resources/dataplanes')).toMatchObject({ status: 404 });
  });

  it('serves the policy effects of a connected proxy once it is configured, and forgets them when it leaves', async () => {
    const { core, get } = await startCore();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
    const client = new RawAdsClient(core.xds.port, { id: 'default.web-1', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(WEB_1) } });
    try {
      client.send(CLUSTER_TYPE_URL);
      await client.next();

      const { status, body } = await eventually(async () => {
        const answer = await get('/meshes/default/dataplanes/web-1/_policy-effects');
        expect(answer.status).toBe(200);
        return answer;
      });
      expect(status).toBe(200);
      expect(body).toEqual({ proxyId: 'default.web-1', versions: expect.objectContaining({ [CLUSTER_TYPE_URL]: expect.any(String) }), attributions: [], unapplied: [] });
    } finally {
      client.close();
    }
    await eventually(async () => expect((await get('/meshes/default/dataplanes/web-1/_policy-effects')).status).toBe(404));
  });
});
