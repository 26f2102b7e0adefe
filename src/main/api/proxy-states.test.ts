import { status } from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';
import { eventually } from '../../../test/support/eventually.js';
import type { ProxyStatus } from '../../shared/api-types.js';
import type { XdsStats } from '../../shared/stats-types.js';
import type { Core } from '../core.js';
import { DATAPLANE_METADATA_KEY } from '../xds/generate/bootstrap.js';
import { CLIENT_TEXT_LIMITS } from '../xds/protocol/client-text.js';
import { CLUSTER_TYPE_URL } from '../xds/protocol/type-urls.js';
import { RawAdsClient } from '../xds/server/testing/raw-ads-client.js';
import { proxyStateLine } from '../xds/status/proxy-state-line.js';
import type { ProxyEvent } from '../xds/status/proxy-timeline.js';

const dataplane = (name: string, port = 18080) => ({
  type: 'Dataplane',
  mesh: 'default',
  name,
  networking: { address: '127.0.0.1', inbound: [{ port, servicePort: 8080, tags: { 'kuma.io/service': name } }] },
});

/** The real core on a temp data directory, no post-create sleep unless a test asks for one. */
async function core(settings: Record<string, string> = {}): Promise<Core> {
  const started = await startTestCore();
  started.settings.update({ 'xds.postCreateStrategy': 'invalidate', ...settings });
  return started;
}

function client(core: Core, nodeId: string, withDataplane?: object): RawAdsClient {
  const metadata = withDataplane && { [DATAPLANE_METADATA_KEY]: JSON.stringify(withDataplane) };
  const proxy = new RawAdsClient(core.xds.port, { id: nodeId, ...(metadata && { metadata }) });
  onTestFinished(() => proxy.close());
  return proxy;
}

async function get<T = any>(core: Core, path: string): Promise<{ status: number; body: T; bytes: number }> {
  const response = await fetch(`${core.api.url}${path}`);
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as T, bytes: text.length };
}

async function listed(core: Core): Promise<ProxyStatus[]> {
  return (await get<{ items: ProxyStatus[] }>(core, '/proxies')).body.items;
}

/** Resolves once the proxy's timeline has an event of this kind. */
function recorded(core: Core, proxyId: string, kind: ProxyEvent['kind']): Promise<void> {
  return eventually(() => expect(core.xds.timeline.events(proxyId).map((event) => event.kind)).toContain(kind));
}

describe('every stream is listed with its real state (11.5)', () => {
  it('a proxy whose node id names no Dataplane is listed as online without a Dataplane, and never counted as API-created', async () => {
    const meshdesk = await core({ 'xds.dataplaneConfigurationRefreshInterval': '20ms' });
    const heard: string[] = [];
    meshdesk.xds.statusTracker.onStateChange((status) => heard.push(status.state));
    const proxy = client(meshdesk, 'default.ghost');
    proxy.send(CLUSTER_TYPE_URL);

    await eventually(async () => expect(await listed(meshdesk)).toEqual([expect.objectContaining({ proxyId: 'default.ghost', online: true, state: 'no-dataplane' })]));
    // Ticks every 20 ms keep finding nothing: the state, and the terminal, change once.
    await eventually(() => expect(meshdesk.xds.timeline.events('default.ghost').filter((event) => event.kind === 'tick').length).toBeGreaterThan(5));
    expect(heard).toEqual(['connecting', 'no-dataplane']);
    expect(proxyStateLine(meshdesk.xds.statusTracker.status('default.ghost')!)).toContain('no Dataplane has its node id');

    const stats = (await get<XdsStats>(meshdesk, '/stats/xds')).body;
    expect(stats.proxies).toEqual([]);
    expect(stats.strategies).toEqual([]);
  });

  it('a proxy refused for an invalid Dataplane is listed as refused with the exact status it got, on its timeline too', async () => {
    const meshdesk = await core();
    const invalid = { ...dataplane('bad'), networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: {} }] } };
    const proxy = client(meshdesk, 'default.bad', invalid);
    proxy.send(CLUSTER_TYPE_URL);
    const got = await proxy.status;
    expect(got.code).toBe(status.INVALID_ARGUMENT);

    const [bad] = await eventually(async () => {
      const items = await listed(meshdesk);
      expect(items).toHaveLength(1);
      return items;
    });
    expect(bad).toMatchObject({
      proxyId: 'default.bad',
      online: false,
      state: 'refused',
      refusal: { by: 'control-plane', code: status.INVALID_ARGUMENT, codeName: 'INVALID_ARGUMENT', message: got.details },
    });
    const closed = meshdesk.xds.timeline.events('default.bad').find((event) => event.kind === 'stream-closed');
    expect(closed).toMatchObject({ ending: { by: 'control-plane', codeName: 'INVALID_ARGUMENT', message: got.details } });
    expect(proxyStateLine(bad!)).toContain(`refused with INVALID_ARGUMENT: ${got.details}`);
    // It never had a Dataplane: it departed at once, and its first config says how it ended, not "API-created".
    expect(bad!.departure).toBeDefined();
    const firstConfig = (await get(meshdesk, '/meshes/default/dataplanes/bad/_first-config')).body;
    expect(firstConfig.registration).toBeUndefined();
    expect(firstConfig.ending).toMatchObject({ codeName: 'INVALID_ARGUMENT' });
  });

  it('a proxy in its post-create wait is listed as waiting, with the end of the wait', async () => {
    const meshdesk = await core({ 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': '1h' });
    const proxy = client(meshdesk, 'default.web-1', dataplane('web-1'));
    proxy.send(CLUSTER_TYPE_URL);

    const [web] = await eventually(async () => {
      const items = await listed(meshdesk);
      expect(items).toEqual([expect.objectContaining({ state: 'waiting' })]);
      return items;
    });
    const started = meshdesk.xds.timeline.events('default.web-1').find((event) => event.kind === 'post-create-wait-started');
    expect(web!.waitEndsAt).toBe(started!.at + 3_600_000);
  });
});

describe('time to first config per connection (11.6)', () => {
  it('shows the latest connection, keeps the earlier one, and groups samples by strategy and cache expiration', async () => {
    const meshdesk = await core({ 'store.cache.expirationTime': '1s' });
    const first = client(meshdesk, 'default.web-1', dataplane('web-1'));
    first.send(CLUSTER_TYPE_URL);
    first.ack(await first.next());
    await eventually(async () => expect((await get(meshdesk, '/meshes/default/dataplanes/web-1/_first-config')).body.total.complete).toBe(true));
    first.close();
    await recorded(meshdesk, 'default.web-1', 'stream-closed');

    meshdesk.settings.update({ 'store.cache.expirationTime': '2s' });
    const second = client(meshdesk, 'default.web-1', dataplane('web-1'));
    second.send(CLUSTER_TYPE_URL);
    second.ack(await second.next());

    const body = await eventually(async () => {
      const { body } = await get(meshdesk, '/meshes/default/dataplanes/web-1/_first-config');
      expect(body.total.complete).toBe(true);
      return body;
    });
    const streams = meshdesk.xds.timeline.events('default.web-1').filter((event) => event.kind === 'stream-opened');
    expect(body).toMatchObject({ streamId: streams[1]!.streamId, cacheExpirationMs: 2000, open: true });
    expect(body.earlier).toEqual([expect.objectContaining({ streamId: streams[0]!.streamId, cacheExpirationMs: 1000, open: false })]);

    const stats = (await get<XdsStats>(meshdesk, '/stats/xds')).body;
    expect(stats.cacheExpirationInForceMs).toBe(2000);
    expect(stats.proxies).toEqual([expect.objectContaining({ proxyId: 'default.web-1', cacheExpirationMs: 2000 })]);
    expect(stats.strategies.map(({ strategy, cacheExpirationMs, proxies }) => ({ strategy, cacheExpirationMs, proxies }))).toEqual([
      { strategy: 'invalidate', cacheExpirationMs: 1000, proxies: 1 },
      { strategy: 'invalidate', cacheExpirationMs: 2000, proxies: 1 },
    ]);
  });
});

describe('a departed proxy keeps its story (11.8)', () => {
  it('shows the countdown to deregistration, then keeps timeline, first config and history after it, marked departed', async () => {
    const meshdesk = await core({ 'xds.dataplaneDeregistrationDelay': '1h' });
    const proxy = client(meshdesk, 'default.web-1', dataplane('web-1'));
    proxy.send(CLUSTER_TYPE_URL);
    proxy.ack(await proxy.next());
    await recorded(meshdesk, 'default.web-1', 'ack');
    proxy.close();
    await recorded(meshdesk, 'default.web-1', 'deregistration-scheduled');

    const offline = (await get<ProxyStatus>(meshdesk, '/meshes/default/dataplanes/web-1/_status')).body;
    const scheduled = meshdesk.xds.lifecycle.pendingDeregistrations()[0]!;
    expect(offline).toMatchObject({ state: 'offline', deregistrationDueAt: scheduled.dueAt });
    expect(offline.departure).toBeUndefined();

    // A short delay now, on a real stream and a real close.
    meshdesk.settings.update({ 'xds.dataplaneDeregistrationDelay': '10ms' });
    const again = client(meshdesk, 'default.web-1', dataplane('web-1'));
    again.send(CLUSTER_TYPE_URL);
    again.ack(await again.next());
    await eventually(() => expect(meshdesk.xds.statusTracker.status('default.web-1')?.state).toBe('configured'));
    again.close();
    await recorded(meshdesk, 'default.web-1', 'deregistered');

    const proxyPath = '/meshes/default/dataplanes/web-1';
    const timeline = await get(meshdesk, `${proxyPath}/_timeline`);
    expect(timeline.status).toBe(200);
    expect(timeline.body.departure).toEqual({ at: expect.any(Number), expiresAt: timeline.body.departure.at + 24 * 3_600_000 });
    expect((await get(meshdesk, `${proxyPath}/_first-config`)).body).toMatchObject({ total: { complete: true }, earlier: [expect.anything()] });
    expect((await get(meshdesk, `${proxyPath}/_history`)).body.total).toBeGreaterThan(0);
    expect(await listed(meshdesk)).toEqual([expect.objectContaining({ proxyId: 'default.web-1', state: 'offline', departure: timeline.body.departure })]);
  });

  it('forgets a departed proxy once its retention is over (0s: at once)', async () => {
    const meshdesk = await core({ 'xds.dataplaneDeregistrationDelay': '0s', 'xds.departedProxyRetention': '0s' });
    const proxy = client(meshdesk, 'default.web-1', dataplane('web-1'));
    proxy.send(CLUSTER_TYPE_URL);
    await proxy.next();
    proxy.close();
    await eventually(() => expect(meshdesk.xds.statusTracker.proxies()).toEqual([]));
    expect(meshdesk.xds.timeline.proxyIds()).toEqual([]);
    expect((await get(meshdesk, '/meshes/default/dataplanes/web-1/_timeline')).status).toBe(404);
  });
});

describe('client-chosen texts and type URLs are bounded (12.4)', () => {
  it('keeps a 3 MB NACK message clipped in the status, the timeline and GET /proxies', async () => {
    const meshdesk = await core({ 'xds.nackBackoff': '0s' });
    const proxy = client(meshdesk, 'default.web-1', dataplane('web-1'));
    proxy.send(CLUSTER_TYPE_URL);
    const response = await proxy.next();
    proxy.nack(response, 'x'.repeat(3 * 1024 * 1024));
    await recorded(meshdesk, 'default.web-1', 'nack');

    const nack = meshdesk.xds.timeline.events('default.web-1').find((event) => event.kind === 'nack');
    expect(nack?.kind === 'nack' && nack.error.length).toBeLessThan(CLIENT_TEXT_LIMITS.message + 100);
    const { bytes } = await get(meshdesk, '/proxies');
    expect(bytes).toBeLessThan(20_000);
    const applied = await eventually(() => {
      const subscription = meshdesk.xds.server.streams()[0]!.subscriptions.find((each) => each.typeUrl === CLUSTER_TYPE_URL)!;
      expect(subscription.lastNack).toBeDefined();
      return subscription.lastNack!;
    });
    expect(applied.errorDetail?.message?.length).toBeLessThan(CLIENT_TEXT_LIMITS.message + 100);
  });

  it('refuses a stream asking for more type URLs than a proxy needs, and keeps none of them after it closes', async () => {
    const meshdesk = await core();
    const proxy = client(meshdesk, 'default.ghost');
    for (let index = 0; index < 1000; index++) proxy.send(`type.googleapis.com/made.up.Type${index}`);
    const got = await proxy.status;

    expect(got.code).toBe(status.RESOURCE_EXHAUSTED);
    await eventually(() => expect(meshdesk.xds.statusTracker.status('default.ghost')?.online).toBe(false));
    expect(meshdesk.xds.statusTracker.status('default.ghost')!.types.length).toBeLessThanOrEqual(32);
  });

  it('lists a refused proxy under its node id clipped', async () => {
    const meshdesk = await core();
    const longId = `default.${'n'.repeat(100_000)}`;
    const proxy = client(meshdesk, longId);
    proxy.send(CLUSTER_TYPE_URL);
    await proxy.status;

    const [entry] = await eventually(async () => {
      const items = await listed(meshdesk);
      expect(items).toHaveLength(1);
      return items;
    });
    expect(entry!.proxyId.length).toBeLessThan(CLIENT_TEXT_LIMITS.nodeId + 100);
    expect(entry!.refusal!.message.length).toBeLessThan(CLIENT_TEXT_LIMITS.message + 100);
  });
});
