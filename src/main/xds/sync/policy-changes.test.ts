import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../../test/support/core.js';
import { BACKEND_1, WEB_1, applyDataplane } from '../../../../test/support/dataplanes.js';
import { eventually } from '../../../../test/support/eventually.js';
import { DATAPLANE_METADATA_KEY } from '../generate/bootstrap.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../protocol/type-urls.js';
import { RawAdsClient } from '../server/testing/raw-ads-client.js';

const timeout = (duration: string) => ({
  type: 'MeshTimeout',
  mesh: 'default',
  name: 'timeout-backend',
  spec: {
    targetRef: { kind: 'MeshSubset', tags: { 'kuma.io/service': 'web' } },
    to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, default: { http: { requestTimeout: duration } } }],
  },
});

describe('snapshot history names the policy changes behind each snapshot', () => {
  it('records a created, then an updated policy on the snapshots they produced', async () => {
    const core = await startTestCore();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
    await applyDataplane(core, BACKEND_1);
    const client = new RawAdsClient(core.xds.port, { id: 'default.web-1', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(WEB_1) } });
    const history = async () => ((await (await fetch(`${core.api.url}/meshes/default/dataplanes/web-1/_history`)).json()) as { items: any[] }).items;
    const put = (body: object) => fetch(`${core.api.url}/meshes/default/meshtimeouts/timeout-backend`, { method: 'PUT', body: JSON.stringify(body) });
    try {
      client.send(CLUSTER_TYPE_URL);
      client.send(LISTENER_TYPE_URL);
      await eventually(async () => expect(await history()).toHaveLength(1));
      expect((await history())[0].policyChanges).toEqual([]);

      expect((await put(timeout('7s'))).status).toBe(201);
      await eventually(async () => expect((await history())[0].policyChanges).toEqual([{ type: 'MeshTimeout', name: 'timeout-backend', to: 1 }]));

      expect((await put({ ...timeout('9s'), version: 1 })).status).toBe(200);
      await eventually(async () => expect((await history())[0].policyChanges).toEqual([{ type: 'MeshTimeout', name: 'timeout-backend', from: 1, to: 2 }]));
    } finally {
      client.close();
    }
  });
});
