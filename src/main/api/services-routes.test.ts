import { describe, expect, it } from 'vitest';
import type { ServicesView } from '../../shared/services-types.js';
import { startTestCore } from '../../../test/support/core.js';
import { applyDataplane, BACKEND_1, clientDataplane, tokenMetadata, WEB_1 } from '../../../test/support/dataplanes.js';
import { eventually } from '../../../test/support/eventually.js';
import { putResource } from '../../../test/support/put-resource.js';
import { DATAPLANE_METADATA_KEY } from '../xds/generate/bootstrap.js';
import { LISTENER_TYPE_URL } from '../xds/protocol/type-urls.js';
import { RawAdsClient } from '../xds/server/testing/raw-ads-client.js';

const MTLS = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };
/** A client that names the `backend` MeshService by a backendRef rather than a tag. */
const PORTAL_1 = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'portal-1',
  networking: { address: '127.0.0.1', inbound: [{ port: 18090, tags: { 'kuma.io/service': 'portal', 'kuma.io/protocol': 'http' } }], outbound: [{ port: 10002, backendRef: { kind: 'MeshService', name: 'backend', port: 18081 } }] },
};

async function startCore() {
  const core = await startTestCore();
  core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
  const get = async (path: string) => {
    const response = await fetch(`${core.api.url}${path}`);
    return { status: response.status, body: (await response.json()) as ServicesView };
  };
  return { core, get };
}

describe('GET /meshes/{mesh}/_services on a real core', () => {
  it('answers every service with its endpoints and each caller’s edge: route split, permission, policies', async () => {
    const { core, get } = await startCore();
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: MTLS, meshServices: { mode: 'Everywhere' } });
    await applyDataplane(core, BACKEND_1);
    await applyDataplane(core, WEB_1);
    await applyDataplane(core, PORTAL_1);
    await putResource(core.api.url, '/meshes/default/meshhttproutes/canary', {
      type: 'MeshHTTPRoute',
      mesh: 'default',
      name: 'canary',
      spec: {
        targetRef: { kind: 'Mesh' },
        to: [
          {
            targetRef: { kind: 'MeshService', name: 'backend' },
            rules: [
              { matches: [{ path: { type: 'PathPrefix', value: '/api' } }], default: { backendRefs: [{ kind: 'MeshService', name: 'backend', weight: 3 }, { kind: 'MeshService', name: 'backend-canary', weight: 1 }] } },
            ],
          },
        ],
      },
    });
    await putResource(core.api.url, '/meshes/default/meshtrafficpermissions/web-to-backend', {
      type: 'MeshTrafficPermission',
      mesh: 'default',
      name: 'web-to-backend',
      spec: { targetRef: { kind: 'MeshService', name: 'backend' }, from: [{ targetRef: { kind: 'MeshService', name: 'web' }, default: { action: 'Allow' } }] },
    });
    await core.serviceModel!.settled();

    const { status, body } = await eventually(async () => {
      const answer = await get('/meshes/default/_services');
      expect(answer.body.services.find((service) => service.kind === 'MeshService' && service.name === 'backend')?.vips).toHaveLength(1);
      expect(answer.body.services.find((service) => service.kind === 'tag' && service.name === 'backend')?.callers[0]?.route).toBeDefined();
      return answer;
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ mesh: 'default', mtls: true });
    expect(body.services.map(({ kind, name }) => `${kind}:${name}`)).toEqual(['tag:backend', 'MeshService:backend', 'tag:portal', 'MeshService:portal', 'tag:web', 'MeshService:web']);

    const [tagBackend, meshServiceBackend] = body.services;
    expect(tagBackend).toMatchObject({
      protocol: 'http',
      ports: [{ port: 18081 }],
      vips: [],
      endpoints: [{ dataplane: 'backend-1', proxyId: 'default.backend-1', address: '127.0.0.1', port: 18081, healthy: true, online: false }],
      online: 0,
    });
    expect(tagBackend!.callers).toHaveLength(1);
    const [edge] = tagBackend!.callers;
    expect(edge).toMatchObject({ dataplane: 'web-1', callerServices: ['web'], outbound: '127.0.0.1:10001', via: 'tag', online: false });
    expect(edge!.route).toEqual({
      type: 'MeshHTTPRoute',
      rules: [
        {
          matches: 'prefix /api',
          targets: [
            { kind: 'MeshService', name: 'backend', weight: 3, percent: 75 },
            { kind: 'MeshService', name: 'backend-canary', weight: 1, percent: 25 },
          ],
          origin: { type: 'MeshHTTPRoute', mesh: 'default', name: 'canary', item: 'spec.to[0]' },
        },
      ],
    });
    expect(edge!.permission).toMatchObject({ decision: 'allowed', origin: { type: 'MeshTrafficPermission', name: 'web-to-backend' } });
    expect(edge!.policies).toContainEqual({ type: 'MeshHTTPRoute', name: 'canary' });
    expect(edge!.policies.every(({ type }) => type !== 'MeshTrafficPermission')).toBe(true); // a `from` policy does not reach the caller's outbound

    // The generated MeshService: its VIP and hostname, the same endpoint, and the caller that names it by backendRef.
    expect(meshServiceBackend).toMatchObject({ kind: 'MeshService', endpoints: [{ dataplane: 'backend-1', port: 18081 }], hostnames: ['backend.svc.mesh.local'] });
    expect(meshServiceBackend!.vips[0]).toMatch(/^241\.0\.0\.\d+$/);
    expect(meshServiceBackend!.callers.map(({ dataplane, via, outbound }) => [dataplane, via, outbound])).toEqual([['portal-1', 'backendRef', '127.0.0.1:10002']]);
    // portal is not allowed by any MeshTrafficPermission on backend.
    expect(meshServiceBackend!.callers[0]!.permission).toMatchObject({ decision: 'denied' });

    // A service only a caller names: no inbound, so no proxy decides a permission (the caller calls as its name).
    await applyDataplane(core, clientDataplane('client-1', 'nowhere'));
    const nowhere = await eventually(async () => {
      const { body: after } = await get('/meshes/default/_services');
      const found = after.services.find((service) => service.name === 'nowhere');
      expect(found).toBeDefined();
      return found!;
    });
    expect(nowhere).toMatchObject({ kind: 'tag', endpoints: [], callers: [{ dataplane: 'client-1', callerServices: ['client-1'] }] });
    expect(nowhere.callers[0]!.permission).toBeUndefined();

    // Connected: backend-1's endpoint is online.
    const proxy = new RawAdsClient(core.xds.port, { id: 'default.backend-1', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(BACKEND_1), ...tokenMetadata(core, 'backend-1') } });
    try {
      proxy.send(LISTENER_TYPE_URL);
      await proxy.next();
      const online = await eventually(async () => {
        const { body: after } = await get('/meshes/default/_services');
        expect(after.services[0]!.online).toBe(1);
        return after.services[0]!;
      });
      expect(online.endpoints[0]).toMatchObject({ online: true, state: 'configured' });
    } finally {
      proxy.close();
    }
  });

  it('carries no permission with mTLS off, lists a service only callers name, and answers Kuma’s 404 for a mesh that does not exist', async () => {
    const { core, get } = await startCore();
    await applyDataplane(core, WEB_1);

    const { status, body } = await get('/meshes/default/_services');
    expect(status).toBe(200);
    expect(body.mtls).toBe(false);
    const backend = body.services.find((service) => service.name === 'backend')!;
    expect(backend).toMatchObject({ kind: 'tag', protocol: 'tcp', endpoints: [], online: 0, callers: [{ dataplane: 'web-1' }] });
    expect(backend.callers[0]!.permission).toBeUndefined();
    expect(await get('/meshes/nowhere/_services')).toMatchObject({ status: 404, body: { title: 'Could not retrieve a resource', detail: 'Not found' } });
  });
});
