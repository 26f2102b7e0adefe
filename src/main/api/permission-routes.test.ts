import { describe, expect, it } from 'vitest';
import type { PermissionMatrixView } from '../../shared/permission-types.js';
import { startTestCore } from '../../../test/support/core.js';
import { applyDataplane, backendDataplane, clientDataplane, tokenMetadata } from '../../../test/support/dataplanes.js';
import { eventually } from '../../../test/support/eventually.js';
import { DATAPLANE_METADATA_KEY } from '../xds/generate/bootstrap.js';
import { LISTENER_TYPE_URL } from '../xds/protocol/type-urls.js';
import { RawAdsClient } from '../xds/server/testing/raw-ads-client.js';

const MTLS = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };
const BACKEND = backendDataplane('backend-1', 18081, 'backend');

async function startCore() {
  const core = await startTestCore();
  core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
  const put = (path: string, body: unknown) => fetch(`${core.api.url}${path}`, { method: 'PUT', body: JSON.stringify(body) });
  const get = async (path: string) => {
    const response = await fetch(`${core.api.url}${path}`);
    return { status: response.status, body: (await response.json()) as PermissionMatrixView };
  };
  return { core, put, get };
}

describe('GET /meshes/{mesh}/_permissions on a real core', () => {
  it('answers the matrix, and where each decision is enforced in the proxies configs', async () => {
    const { core, put, get } = await startCore();
    expect((await put('/meshes/default', { type: 'Mesh', name: 'default', mtls: MTLS })).status).toBe(200);
    await applyDataplane(core, BACKEND);
    await applyDataplane(core, clientDataplane('client-1', 'backend'));
    await put('/meshes/default/meshtrafficpermissions/client-to-backend', {
      type: 'MeshTrafficPermission',
      mesh: 'default',
      name: 'client-to-backend',
      spec: { targetRef: { kind: 'MeshService', name: 'backend' }, from: [{ targetRef: { kind: 'MeshService', name: 'client-1' }, default: { action: 'Allow' } }] },
    });

    // Not connected: the decision stands, its enforcement is not there yet.
    const before = await eventually(async () => {
      const answer = await get('/meshes/default/_permissions');
      expect(answer.body.cells.some((cell) => cell.decision === 'allowed')).toBe(true);
      return answer.body;
    });
    expect(before).toMatchObject({ mesh: 'default', enforced: true, mode: 'STRICT', callers: ['backend', 'client-1'], destinations: ['backend'], warnings: [] });
    expect(before.cells.map(({ caller, destination, decision }) => [caller, destination, decision])).toEqual([
      ['backend', 'backend', 'denied'],
      ['client-1', 'backend', 'allowed'],
    ]);
    expect(before.cells[1]!.paths).toEqual([
      {
        dataplane: 'backend-1',
        inbound: '127.0.0.1:18081',
        callers: ['client-1'],
        verdict: {
          decision: 'allowed',
          origin: { type: 'MeshTrafficPermission', mesh: 'default', name: 'client-to-backend', item: 'spec.from[0]' },
          reason: 'action Allow for kuma.io/service=client-1',
        },
      },
    ]);
    expect(before.enforcement).toEqual({
      'backend-1': { dataplane: 'backend-1', proxyId: 'default.backend-1', connected: false, inbounds: [{ inbound: '127.0.0.1:18081', filters: [], missing: 'not connected, config not generated' }] },
    });

    // Connected: its inbound listener, with the mTLS chain RBAC goes on.
    const proxy = new RawAdsClient(core.xds.port, { id: 'default.backend-1', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(BACKEND), ...tokenMetadata(core, 'backend-1') } });
    try {
      proxy.send(LISTENER_TYPE_URL);
      await proxy.next();
      const after = await eventually(async () => {
        const { body } = await get('/meshes/default/_permissions');
        expect(body.enforcement['backend-1']?.connected).toBe(true);
        return body;
      });
      // Its inbound listener's RBAC filter: the principal the matrix's allowed cell comes from.
      const [inbound] = after.enforcement['backend-1']!.inbounds;
      expect(inbound).toMatchObject({ inbound: '127.0.0.1:18081', listener: 'inbound:127.0.0.1:18081', filters: [{ name: 'envoy.filters.http.rbac' }] });
      expect(inbound!.missing).toBeUndefined();
      expect(inbound!.filters[0]!.path).toMatch(/^filter_chains\[\d+\]\.filters\[\d+\]\.typed_config\.http_filters\[0\]$/);
      expect(JSON.stringify(inbound!.filters[0]!.config)).toContain('"exact":"spiffe://default/client-1"');
    } finally {
      proxy.close();
    }
  });

  it('says nothing is enforced with mTLS off, and answers Kuma’s 404 for a mesh that does not exist', async () => {
    const { core, get } = await startCore();
    await applyDataplane(core, BACKEND);

    const { status, body } = await get('/meshes/default/_permissions');
    expect(status).toBe(200);
    expect(body).toMatchObject({ enforced: false, note: 'mTLS is off: permissions are not enforced' });
    expect(body.cells[0]!.paths[0]).toMatchObject({
      verdict: { decision: 'allowed', reason: 'mTLS is off: permissions are not enforced' },
      whenEnforced: { decision: 'denied', reason: 'no MeshTrafficPermission selects this inbound: mTLS denies all' },
    });
    expect(await get('/meshes/nowhere/_permissions')).toMatchObject({ status: 404, body: { title: 'Could not retrieve a resource', detail: 'Not found' } });
  });

  it('pages the cells as Kuma pages lists: size, offset and the next page\'s URL', async () => {
    const { core, get } = await startCore();
    await applyDataplane(core, BACKEND);
    await applyDataplane(core, clientDataplane('client-1', 'backend'));
    await applyDataplane(core, backendDataplane('web-1', 18082, 'web'));

    const first = await eventually(async () => {
      const answer = await get('/meshes/default/_permissions?size=4');
      expect(answer.body.total).toBe(6); // callers backend, client-1, web × destinations backend, web
      return answer;
    });
    expect(first.status).toBe(200);
    expect(first.body.cells.map(({ caller, destination }) => `${caller}→${destination}`)).toEqual(['backend→backend', 'backend→web', 'client-1→backend', 'client-1→web']);
    expect(first.body.next).toBe(`${core.api.url}/meshes/default/_permissions?offset=4&size=4`);
    const second = await get(new URL(first.body.next!).pathname + new URL(first.body.next!).search);
    expect(second.body).toMatchObject({ offset: 4, next: null });
    expect(second.body.cells.map(({ caller, destination }) => `${caller}→${destination}`)).toEqual(['web→backend', 'web→web']);
    expect(await get('/meshes/default/_permissions?size=1001')).toMatchObject({
      status: 400,
      body: { title: 'Could not retrieve resources', invalid_parameters: [{ field: 'size', reason: 'invalid page size of 1001. Maximum page size is 1000' }] },
    });
  });
});
