// The service model's zone components on a real core (real SQLite, the real API): what a mesh using
// MeshServices gets, and what one that does not is spared.
import { describe, expect, it } from 'vitest';
import type { Core } from '../core.js';
import { startTestCore } from '../../../test/support/core.js';
import { putResource } from '../../../test/support/put-resource.js';

async function get(core: Core, path: string): Promise<Record<string, any>> {
  await core.serviceModel!.settled();
  const response = await fetch(`${core.api.url}${path}`);
  return (await response.json()) as Record<string, any>;
}

const dataplane = (name: string, address: string, service = 'web') => ({
  type: 'Dataplane',
  mesh: 'default',
  name,
  networking: { address, inbound: [{ port: 8080, servicePort: 80, tags: { 'kuma.io/service': service, 'kuma.io/protocol': 'http' } }] },
});

describe('service model components', () => {
  it('leaves a mesh that does not use MeshServices as it was: nothing generated, no HostnameGenerator made', async () => {
    const core = await startTestCore();
    await putResource(core.api.url, '/meshes/default/dataplanes/web-1', dataplane('web-1', '10.0.0.1'));
    expect((await get(core, '/meshes/default/meshservices')).items).toEqual([]);
    expect((await get(core, '/hostnamegenerators')).items).toEqual([]);
  });

  it('generates, gives VIPs in order, hostnames from the default generators, and counts the proxies, without a new version for the status', async () => {
    const core = await startTestCore();
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', meshServices: { mode: 'Exclusive' } });
    await putResource(core.api.url, '/meshes/default/dataplanes/web-1', dataplane('web-1', '10.0.0.1'));
    await core.serviceModel!.settled();
    await putResource(core.api.url, '/meshes/default/dataplanes/api-1', dataplane('api-1', '10.0.0.2', 'api'));
    expect((await get(core, '/hostnamegenerators')).items.map(({ name }: { name: string }) => name)).toEqual(['local-mesh-external-service', 'local-universal-mesh-service']);
    const api = await get(core, '/meshes/default/meshservices/api');
    const web = await get(core, '/meshes/default/meshservices/web');
    // In the order they came: web first.
    expect(api.status.vips).toEqual([{ ip: '241.0.0.1' }]);
    expect(web.status).toEqual({
      vips: [{ ip: '241.0.0.0' }],
      addresses: [{ hostname: 'web.svc.mesh.local', origin: 'HostnameGenerator', hostnameGeneratorRef: { coreName: 'local-universal-mesh-service' } }],
      hostnameGenerators: [
        { hostnameGeneratorRef: { coreName: 'local-universal-mesh-service' }, conditions: [{ type: 'Generated', status: 'True', reason: 'Generated', message: '' }] },
      ],
      tls: { status: 'NotReady' },
      dataplaneProxies: { healthy: 1, total: 1 },
    });
    expect(web.spec).toMatchObject({ state: 'Available', identities: [{ type: 'ServiceTag', value: 'web' }] });
    expect(await get(core, '/meshes/default/meshservices/web/_hostnames')).toEqual({ items: [{ hostname: 'web.svc.mesh.local', zones: [{ name: 'default' }] }], total: 1 });
    expect(await get(core, '/meshes/default/meshservices/web/_dataplanes')).toMatchObject({ items: [{ name: 'web-1', type: 'Dataplane' }], total: 1 });
    // Selectors see the zone in the inbounds' tags, as Kuma's Dataplane manager stores it.
    await putResource(core.api.url, '/meshes/default/meshservices/web-here', {
      type: 'MeshService',
      mesh: 'default',
      name: 'web-here',
      spec: { selector: { dataplaneTags: { 'kuma.io/service': 'web', 'kuma.io/zone': 'default' } }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    expect(await get(core, '/meshes/default/meshservices/web-here/_dataplanes')).toMatchObject({ items: [{ name: 'web-1' }], total: 1 });
    expect((await get(core, '/meshes/default/meshservices/web-here')).status.dataplaneProxies).toEqual({ healthy: 1, total: 1 });

    // A second proxy of web: only web's status and counts change; its version stays (status is written apart).
    await putResource(core.api.url, '/meshes/default/dataplanes/web-2', dataplane('web-2', '10.0.0.3'));
    const after = await get(core, '/meshes/default/meshservices/web');
    expect(after.status.dataplaneProxies).toEqual({ healthy: 2, total: 2 });
    expect(after.version).toBe(web.version);
    expect((await get(core, '/meshes/default/meshservices/api')).version).toBe(api.version);
  });

  it('gives MeshExternalServices and MeshMultiZoneServices their own ranges, and a MeshMultiZoneService its matched MeshServices', async () => {
    const core = await startTestCore();
    await putResource(core.api.url, '/meshes/default/meshservices/redis', {
      type: 'MeshService',
      mesh: 'default',
      name: 'redis',
      labels: { app: 'redis' },
      spec: { selector: { dataplaneTags: { app: 'redis' } }, ports: [{ port: 6379, targetPort: 6379 }] },
    });
    await putResource(core.api.url, '/meshes/default/meshexternalservices/httpbin', {
      type: 'MeshExternalService',
      mesh: 'default',
      name: 'httpbin',
      spec: { match: { port: 80, protocol: 'http' }, endpoints: [{ address: 'httpbin.org', port: 80 }] },
    });
    await putResource(core.api.url, '/meshes/default/meshmultizoneservices/all-redis', {
      type: 'MeshMultiZoneService',
      mesh: 'default',
      name: 'all-redis',
      spec: { selector: { meshService: { matchLabels: { app: 'redis' } } }, ports: [{ port: 6379 }] },
    });
    expect((await get(core, '/meshes/default/meshservices/redis')).status).toMatchObject({
      vips: [{ ip: '241.0.0.0' }],
      addresses: [{ hostname: 'redis.svc.mesh.local' }],
      dataplaneProxies: {},
    });
    expect((await get(core, '/meshes/default/meshexternalservices/httpbin')).status).toMatchObject({
      vip: { ip: '242.0.0.0' },
      addresses: [{ hostname: 'httpbin.extsvc.mesh.local' }],
    });
    expect((await get(core, '/meshes/default/meshmultizoneservices/all-redis')).status).toEqual({
      vips: [{ ip: '243.0.0.0' }],
      meshServices: [{ name: 'redis', namespace: '', zone: 'default', mesh: 'default' }],
      conditions: [{ type: 'MeshServicesMatched', status: 'True', reason: 'MatchesFound', message: 'Matched 1 MeshService(s)' }],
    });
    // A PUT ignores status: the VIP stays.
    await putResource(core.api.url, '/meshes/default/meshservices/redis', {
      type: 'MeshService',
      mesh: 'default',
      name: 'redis',
      labels: { app: 'redis' },
      spec: { selector: { dataplaneTags: { app: 'redis' } }, ports: [{ port: 6380, targetPort: 6379 }] },
      status: { vips: [{ ip: '10.0.0.1' }] },
    });
    expect((await get(core, '/meshes/default/meshservices/redis')).status.vips).toEqual([{ ip: '241.0.0.0' }]);
  });

  it('does not give a deleted MeshService’s VIP to the next one', async () => {
    const core = await startTestCore();
    const put = (name: string) =>
      putResource(core.api.url, `/meshes/default/meshservices/${name}`, { type: 'MeshService', mesh: 'default', name, spec: { ports: [{ port: 80 }] } });
    await put('first');
    expect((await get(core, '/meshes/default/meshservices/first')).status.vips).toEqual([{ ip: '241.0.0.0' }]);
    await fetch(`${core.api.url}/meshes/default/meshservices/first`, { method: 'DELETE' });
    await put('second');
    expect((await get(core, '/meshes/default/meshservices/second')).status.vips).toEqual([{ ip: '241.0.0.1' }]);
  });

  it('writes a status without touching the MeshContext, so no proxy is regenerated for it; a new VIP does change it', async () => {
    const core = await startTestCore();
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', meshServices: { mode: 'Everywhere' } });
    await putResource(core.api.url, '/meshes/default/dataplanes/web-1', dataplane('web-1', '10.0.0.1'));
    await core.serviceModel!.settled();
    core.settings.update({ 'store.cache.expirationTime': '0s' }); // every read below goes to the store
    const before = await core.xds.meshContexts.get('default');
    expect(before.destinations.meshServices.map(({ meta }) => meta.name)).toEqual(['web']);
    const web = before.destinations.meshServices[0]!;
    const key = { type: 'MeshService' as const, mesh: 'default', name: 'web' };
    // What the status updater writes when the proxy connects: counts only.
    await core.manager.writeStatuses([{ key, status: { ...web.status, dataplaneProxies: { connected: 1, healthy: 1, total: 1 } } }]);
    const afterCounts = await core.xds.meshContexts.get('default');
    expect(afterCounts.destinations.meshServices[0]!.status?.dataplaneProxies).toEqual(web.status?.dataplaneProxies);
    expect(afterCounts).toBe(before);
    await core.manager.writeStatuses([{ key, status: { ...web.status, vips: [{ ip: '241.0.0.99' }] } }]);
    expect((await core.xds.meshContexts.get('default')).hash).not.toBe(before.hash);
  });

  it('names MeshServices by a user HostnameGenerator: its template, a collision and a template error as conditions', async () => {
    const core = await startTestCore();
    const put = (name: string, labels: Record<string, string>) =>
      putResource(core.api.url, `/meshes/default/meshservices/${name}`, { type: 'MeshService', mesh: 'default', name, labels, spec: { ports: [{ port: 80 }] } });
    await put('orders', { team: 'shop', tier: 'gold' });
    await core.serviceModel!.settled();
    await put('payments', { team: 'shop', tier: 'gold' });
    await put('search', { tier: 'gold' });
    await putResource(core.api.url, '/hostnamegenerators/by-team', {
      type: 'HostnameGenerator',
      name: 'by-team',
      spec: { template: '{{ label "team" }}.{{ .Mesh }}.{{ .Zone }}.internal', selector: { meshService: { matchLabels: { tier: 'gold' } } } },
    });
    const generatorStatus = async (name: string) =>
      ((await get(core, `/meshes/default/meshservices/${name}`)).status.hostnameGenerators as { hostnameGeneratorRef: { coreName: string } }[]).find(
        ({ hostnameGeneratorRef }) => hostnameGeneratorRef.coreName === 'by-team',
      );
    expect((await get(core, '/meshes/default/meshservices/orders')).status.addresses).toContainEqual({
      hostname: 'shop.default.default.internal',
      origin: 'HostnameGenerator',
      hostnameGeneratorRef: { coreName: 'by-team' },
    });
    expect(await generatorStatus('payments')).toEqual({
      hostnameGeneratorRef: { coreName: 'by-team' },
      conditions: [{ type: 'Generated', status: 'False', reason: 'Collision', message: 'Hostname collision with MeshService: payments' }],
    });
    expect((await generatorStatus('search'))!).toMatchObject({ conditions: [{ type: 'Generated', status: 'False', reason: 'TemplateError' }] });
    expect(await get(core, '/hostnamegenerators/by-team')).toMatchObject({ type: 'HostnameGenerator', name: 'by-team', labels: { 'kuma.io/origin': 'zone', 'kuma.io/zone': 'default' } });
    expect(await get(core, '/hostnamegenerators/by-team')).not.toHaveProperty('mesh');
  });
});
