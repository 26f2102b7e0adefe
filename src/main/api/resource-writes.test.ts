import { afterEach, describe, expect, it } from 'vitest';
import { computedDataplaneLabels } from '../../../test/support/computed-labels.js';
import { startTestCore } from '../../../test/support/core.js';
import { eventually } from '../../../test/support/eventually.js';
import { connectGrpcProxy, type GrpcProxy } from '../../../test/ui/support/grpc-proxy.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../xds/callbacks/dataplane-lifecycle.js';

const backend = (name: string, port: number, address = '127.0.0.1') => ({
  type: 'Dataplane',
  mesh: 'default',
  name,
  networking: { address, inbound: [{ port, servicePort: 8080, tags: { 'kuma.io/service': 'backend' } }] },
});

async function put(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'PUT', body: JSON.stringify(body), headers });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function getJson(url: string): Promise<Record<string, any>> {
  return (await fetch(url)).json() as Promise<Record<string, any>>;
}

const proxies: GrpcProxy[] = [];
afterEach(() => proxies.splice(0).forEach((proxy) => proxy.close()));

describe('writing resources through the API never replaces what the writer did not mean to', () => {
  it('creates with If-None-Match: * and answers 409 naming the Dataplane when it exists, changing nothing', async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/default/dataplanes/backend-1`;
    expect((await put(url, backend('backend-1', 18080), { 'If-None-Match': '*' })).status).toBe(201);

    const again = await put(url, backend('backend-1', 18090), { 'If-None-Match': '*' });
    expect(again.status).toBe(409);
    expect(again.body.details).toBe('Dataplane "backend-1" in mesh "default" already exists');
    // The same for clients that send no headers (the app's IPC bridge).
    expect((await put(`${url}?createOnly=true`, backend('backend-1', 18090))).status).toBe(409);
    expect(await getJson(url)).toMatchObject({ version: 1, networking: { inbound: [{ port: 18080 }] } });
  });

  it('refuses to update a proxy-registered Dataplane unless the request says takeOver=true, which makes it the API’s', async () => {
    const core = await startTestCore();
    proxies.push(connectGrpcProxy({ adsPort: core.xds.port, name: 'web-1', target: 'backend', register: { networking: backend('web-1', 19001).networking } }));
    const url = `${core.api.url}/meshes/default/dataplanes/web-1`;
    const registered = await eventually(async () => {
      const stored = await getJson(url);
      // Kuma computes its labels on every write, a proxy's registration included.
      expect(stored.labels).toEqual({ [ORIGIN_LABEL]: PROXY_ORIGIN, ...computedDataplaneLabels() });
      return stored;
    });

    const refused = await put(url, { ...backend('web-1', 19002), version: registered.version });
    expect(refused.status).toBe(409);
    expect(refused.body.details).toMatch(/registered by its proxy .*\?takeOver=true/);
    expect(refused.body.causes).toEqual([{ field: `labels["${ORIGIN_LABEL}"]`, message: expect.stringContaining('takeOver=true') }]);
    expect(await getJson(url)).toMatchObject({ version: registered.version, networking: { inbound: [{ port: 19001 }] } });

    // Also without a version, and a body that claims the proxy's label cannot keep it either.
    const claimed = { ...backend('web-1', 19002), labels: { [ORIGIN_LABEL]: PROXY_ORIGIN } };
    expect((await put(url, claimed)).status).toBe(409);
    const taken = await put(`${url}?takeOver=true`, claimed);
    expect(taken.status).toBe(200);
    expect(taken.body.labels ?? {}).toEqual({});
    expect(await getJson(url)).toMatchObject({ networking: { inbound: [{ port: 19002 }] } });
  });

  it('refuses an inbound port another Dataplane of the mesh listens on at the same address, naming the field and the other', async () => {
    const core = await startTestCore();
    const dataplanes = `${core.api.url}/meshes/default/dataplanes`;
    expect((await put(`${dataplanes}/backend-1`, backend('backend-1', 18080))).status).toBe(201);

    const clash = await put(`${dataplanes}/backend-2`, backend('backend-2', 18080));
    expect(clash.status).toBe(400);
    expect(clash.body.causes).toEqual([
      { field: 'networking.inbound[0].port', message: expect.stringMatching(/^127\.0\.0\.1:18080 is already used by networking\.inbound\[0\] of Dataplane "backend-1"/) },
    ]);
    // Moving an existing Dataplane onto the port is refused the same way.
    expect((await put(`${dataplanes}/backend-2`, backend('backend-2', 18081))).status).toBe(201);
    expect((await put(`${dataplanes}/backend-2`, backend('backend-2', 18080))).status).toBe(400);
    expect(await getJson(`${dataplanes}/backend-2`)).toMatchObject({ version: 1, networking: { inbound: [{ port: 18081 }] } });

    // Another address, or the Dataplane's own port, is no collision.
    expect((await put(`${dataplanes}/backend-3`, backend('backend-3', 18080, '127.0.0.2'))).status).toBe(201);
    expect((await put(`${dataplanes}/backend-1`, { ...backend('backend-1', 18080), labels: { edited: 'yes' } })).status).toBe(200);
  });

  it('takes a Dataplane with a thousand inbounds, and still names the one of them another Dataplane listens on', async () => {
    const core = await startTestCore();
    const dataplanes = `${core.api.url}/meshes/default/dataplanes`;
    const inbound = Array.from({ length: 1_000 }, (_, index) => ({ port: 20_000 + index, tags: { 'kuma.io/service': `wide-${index}` } }));
    const wide = { type: 'Dataplane', mesh: 'default', name: 'wide', networking: { address: '127.0.0.1', inbound } };
    expect((await put(`${dataplanes}/wide`, wide)).status).toBe(201);

    const clash = await put(`${dataplanes}/other`, { ...wide, name: 'other', networking: { address: '127.0.0.1', inbound: [inbound[1], inbound[999]] } });
    expect(clash.status).toBe(400);
    expect(clash.body.causes.map((cause: { field: string }) => cause.field)).toEqual(['networking.inbound[0].port', 'networking.inbound[1].port']);
  });

  it("refuses a kuma.io/workload label that is not a DNS-1035 label on create, in Kuma's words, and takes it on update as Kuma does", async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/default/dataplanes/backend-1`;
    const labelled = (workload: string) => ({ ...backend('backend-1', 18080), labels: { 'kuma.io/workload': workload } });

    for (const workload of ['MyWorkload', '1workload', `a${'b'.repeat(63)}`]) {
      const refused = await put(url, labelled(workload));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ title: 'Bad Request', detail: expect.stringMatching(/^bad request: labels\["kuma\.io\/workload"\]: must be a valid DNS-1035 label/) });
      expect(refused.body.invalid_parameters).toBeUndefined();
    }
    expect((await put(url, labelled('a'.repeat(64)))).body.detail).toMatch(/: must be no more than 63 characters$/);
    expect((await fetch(url)).status).toBe(404);

    expect((await put(url, labelled('my-workload'))).status).toBe(201);
    expect((await put(url, labelled('MyWorkload'))).status).toBe(200);
  });

  it("refuses labels Kuma's API refuses: another zone or mesh, an unknown origin, and a change of origin or zone", async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/default/dataplanes/backend-1`;
    const labelled = (labels: Record<string, string>) => ({ ...backend('backend-1', 18080), labels });

    const refused = await put(url, labelled({ 'kuma.io/zone': 'zone-2', 'kuma.io/mesh': 'other', 'kuma.io/origin': 'elsewhere' }));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ title: 'Could not process a resource', detail: 'Resource is not valid' });
    expect(refused.body.invalid_parameters).toEqual([
      { field: 'labels["kuma.io/origin"]', reason: 'unknown resource origin "elsewhere"' },
      { field: 'labels["kuma.io/zone"]', reason: 'kuma.io/zone label should have default value' },
      { field: 'labels["kuma.io/mesh"]', reason: 'kuma.io/mesh label must not differ from mesh set on resource' },
    ]);
    expect((await put(url, labelled({ 'kuma.io/zone': 'default', 'kuma.io/mesh': 'default' }))).status).toBe(201);

    const changed = await put(url, labelled({ 'kuma.io/origin': 'global' }));
    expect(changed.status).toBe(400);
    expect(changed.body).toMatchObject({ title: 'Could not update a resource', detail: 'Resource is not valid' });
    expect(changed.body.invalid_parameters).toEqual([
      { field: 'labels["kuma.io/origin"]', reason: 'is immutable, cannot be changed from "zone" to "global"' },
      { field: 'labels["kuma.io/zone"]', reason: 'is immutable, cannot be removed (was "default")' },
    ]);
    expect((await getJson(url)).labels).toEqual(computedDataplaneLabels());
  });
});
