import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { withControlPlaneCert } from '../../../test/support/with-control-plane-cert.js';
import { startCore, type Core } from '../core.js';
import { DATAPLANE_METADATA_KEY } from '../xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../xds/protocol/type-urls.js';
import { RawAdsClient } from '../xds/server/testing/raw-ads-client.js';
import type { ProxyEvent } from '../xds/status/proxy-timeline.js';

const PROXY = 'default.web-1';
const WEB_1 = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'web-1',
  networking: { address: '127.0.0.1', inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'web' } }] },
};

/** The real core (store, caches, the callbacks chain, ADS and the HTTP API on ephemeral ports). */
class XdsApiFixture {
  readonly dir = withControlPlaneCert(tempDir());
  readonly clients: RawAdsClient[] = [];
  core!: Core;

  async start(): Promise<void> {
    this.core = await startCore({ dataDir: this.dir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    this.core.settings.update({ 'xds.postCreateStrategy': 'invalidate' }); // no sleep: tests wait on events, not on time
  }

  get manager(): Core['manager'] {
    return this.core.manager;
  }

  get xds(): Core['xds'] {
    return this.core.xds;
  }

  async close(): Promise<void> {
    for (const client of this.clients) client.close();
    await this.core.close();
  }

  /** An Envoy-like proxy in the universal flow: it brings its Dataplane in its node metadata. */
  proxy(nodeId: string, dataplane: object): RawAdsClient {
    const client = new RawAdsClient(this.xds.port, { id: nodeId, metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane) } });
    this.clients.push(client);
    return client;
  }

  /** Resolves once the proxy's timeline satisfies `done`, checked on every event it records. */
  timelineUntil(proxyId: string, done: (events: readonly ProxyEvent[]) => boolean): Promise<void> {
    const { timeline } = this.xds;
    return new Promise((resolve) => {
      if (done(timeline.events(proxyId))) return resolve();
      const unsubscribe = this.core.events.subscribe((event) => {
        if (event.topic !== 'proxy.event' || event.proxyId !== proxyId || !done(timeline.events(proxyId))) return;
        unsubscribe();
        resolve();
      });
    });
  }

  async get(path: string): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.core.api.url}${path}`);
    return { status: response.status, body: await response.json() };
  }
}

let fixture: XdsApiFixture;

beforeEach(async () => {
  fixture = new XdsApiFixture();
  await fixture.start();
});

afterEach(() => fixture.close());

const count = (events: readonly ProxyEvent[], kind: ProxyEvent['kind']) => events.filter((event) => event.kind === kind).length;

/** web-1 connects, subscribes to CDS and LDS, and ACKs both. */
async function connectAndAcceptEverything(): Promise<RawAdsClient> {
  const client = fixture.proxy(PROXY, WEB_1);
  client.send(CLUSTER_TYPE_URL);
  client.send(LISTENER_TYPE_URL);
  client.ack(await client.next());
  client.ack(await client.next());
  await fixture.timelineUntil(PROXY, (events) => count(events, 'ack') === 2);
  return client;
}

describe('inspection API', () => {
  it('lists connected proxies with their status', async () => {
    await connectAndAcceptEverything();

    const { status, body } = await fixture.get('/proxies');

    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 1, items: [{ proxyId: PROXY, online: true, connections: 1 }] });
    expect(body.items[0].types.map((type: { type: string }) => type.type)).toEqual(['cds', 'lds']);
  });

  it("serves a proxy's configuration as Envoy's config dump, decoded from what is sent", async () => {
    await connectAndAcceptEverything();

    const { status, body } = await fixture.get('/meshes/default/dataplanes/web-1/xds');

    expect(status).toBe(200);
    const listeners = body.configs.find((config: any) => config['@type'] === 'type.googleapis.com/envoy.admin.v3.ListenersConfigDump');
    expect(listeners.dynamic_listeners).toContainEqual(
      expect.objectContaining({
        name: 'inbound:127.0.0.1:18080',
        active_state: expect.objectContaining({ listener: expect.objectContaining({ '@type': LISTENER_TYPE_URL }) }),
      }),
    );
  });

  it("shows one proxy's status with what its live stream subscribes to", async () => {
    await connectAndAcceptEverything();

    const { body } = await fixture.get('/meshes/default/dataplanes/web-1/_status');

    expect(body).toMatchObject({ proxyId: PROXY, online: true });
    const clusters = body.types.find((type: any) => type.type === 'cds');
    expect(clusters.lastAcked.version).toBe(clusters.lastSent.version);
    expect(clusters.counts).toMatchObject({ responses: 1, acks: 1, nacks: 0 });
    expect(body.subscriptions.map((subscription: any) => [subscription.typeUrl, subscription.wildcard])).toEqual([
      [CLUSTER_TYPE_URL, true],
      [LISTENER_TYPE_URL, true],
    ]);
  });

  it("serves a proxy's timeline, each callback's events in chain order", async () => {
    await connectAndAcceptEverything();

    const { body } = await fixture.get('/meshes/default/dataplanes/web-1/_timeline');

    const events: ProxyEvent[] = body.events;
    expect(body.proxyId).toBe(PROXY);
    expect(events.slice(0, 4).map((event) => event.kind)).toEqual(['stream-opened', 'registered', 'post-create-wait', 'tick']);
    for (const typeUrl of [CLUSTER_TYPE_URL, LISTENER_TYPE_URL]) {
      const sent = events.findIndex((event) => event.kind === 'response' && event.typeUrl === typeUrl);
      const acked = events.findIndex((event) => event.kind === 'ack' && event.typeUrl === typeUrl);
      expect(sent).toBeGreaterThan(3);
      expect(acked).toBeGreaterThan(sent);
    }
  });

  it('gives the time-to-first-config breakdown of the first connection', async () => {
    await connectAndAcceptEverything();

    const { status, body } = await fixture.get('/meshes/default/dataplanes/web-1/_first-config');

    expect(status).toBe(200);
    expect(body).toMatchObject({
      proxyId: PROXY,
      open: true,
      registration: { origin: 'metadata', created: true },
      postCreateWait: { strategy: 'invalidate' },
      firstTick: { result: 'changed' },
      firstConfigTick: { ticksBefore: 0 },
      total: { complete: true },
    });
    expect(body.phases.map((phase: { name: string }) => phase.name)).toEqual([
      'registration',
      'post-create-wait',
      'first-generation',
      'first-responses',
      'first-acks',
    ]);
    expect(body.types.map((type: { type: string }) => type.type).sort()).toEqual(['cds', 'lds']);
  });

  it("lists a proxy's snapshot history and serves one snapshot by id, only under its own proxy", async () => {
    await connectAndAcceptEverything();

    const list = await fixture.get('/meshes/default/dataplanes/web-1/_history');
    expect(list.status).toBe(200);
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    const [newest] = list.body.items;
    expect(newest).toMatchObject({ proxyId: PROXY, versions: { [LISTENER_TYPE_URL]: expect.any(String) } });
    expect(newest.resources).toBeUndefined(); // lists leave the resources out

    const one = await fixture.get(`/meshes/default/dataplanes/web-1/_history/${newest.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: newest.id, versions: newest.versions });
    expect(one.body.resources[LISTENER_TYPE_URL]).toContainEqual(expect.objectContaining({ name: 'inbound:127.0.0.1:18080' }));

    const elsewhere = await fixture.get(`/meshes/default/dataplanes/other-1/_history/${newest.id}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.details).toContain(`proxy "default.other-1" has no snapshot ${newest.id}`);
    expect((await fixture.get('/meshes/default/dataplanes/web-1/_history/latest')).status).toBe(400);
  });

  it('shows a snapshot in history as the config dump does, and no change for a type that has no resources', async () => {
    // TCP only: no routes. Its outbound's EDS cluster carries lb_policy ROUND_ROBIN, proto3's default.
    const client = fixture.proxy('default.client-1', {
      ...WEB_1,
      name: 'client-1',
      networking: { address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }] },
    });
    client.send(CLUSTER_TYPE_URL);
    client.ack(await client.next());
    await fixture.timelineUntil('default.client-1', (events) => count(events, 'ack') === 1);

    const [first] = (await fixture.get('/meshes/default/dataplanes/client-1/_history')).body.items;
    expect(first.changedTypes).not.toContain(ROUTE_TYPE_URL);
    expect(first.changedTypes).toContain(CLUSTER_TYPE_URL);

    const snapshot = (await fixture.get(`/meshes/default/dataplanes/client-1/_history/${first.id}`)).body;
    const dump = (await fixture.get('/meshes/default/dataplanes/client-1/xds')).body;
    const dumped = dump.configs.find((config: { '@type': string }) => config['@type'].endsWith('.ClustersConfigDump'));
    const inDump = dumped.dynamic_active_clusters.map((entry: { cluster: unknown }) => entry.cluster);
    const inHistory = snapshot.resources[CLUSTER_TYPE_URL].map((entry: { resource: unknown }) => entry.resource);
    expect(inHistory).toEqual(inDump);
    expect(JSON.stringify(inHistory)).not.toContain('lb_policy');
  });

  it('lists the Dataplanes of a mesh with their proxy status, null for one never connected', async () => {
    await fixture.manager.create({
      type: 'Dataplane',
      mesh: 'default',
      name: 'backend-1',
      labels: {},
      spec: { networking: { address: '127.0.0.1', inbound: [{ port: 18081, tags: { 'kuma.io/service': 'backend' } }] } },
    });
    await connectAndAcceptEverything();

    const { body } = await fixture.get('/meshes/default/dataplanes+status');

    expect(body.total).toBe(2);
    expect(body.items).toEqual([
      expect.objectContaining({ type: 'DataplaneOverview', mesh: 'default', name: 'backend-1', dataplaneInsight: null }),
      expect.objectContaining({
        type: 'DataplaneOverview',
        name: 'web-1',
        dataplane: { networking: WEB_1.networking },
        dataplaneInsight: expect.objectContaining({ proxyId: PROXY, online: true }),
      }),
    ]);
  });

  it('shows the callbacks chain in the order it runs, the xDS settings in force and the ADS address', async () => {
    const { body } = await fixture.get('/xds/chain');

    expect(body.callbacks).toEqual(['auth', 'dataplane-lifecycle', 'dataplane-sync-tracker', 'status-tracker', 'nack-backoff']);
    expect(body.settings).toMatchObject({ 'xds.postCreateStrategy': 'invalidate', 'xds.nackBackoff': '5s' });
    expect(Object.keys(body.settings).every((name) => name.startsWith('xds.'))).toBe(true);
    expect(body.ads).toEqual({ host: '127.0.0.1', port: fixture.xds.port });
  });

  it('shows a disconnected proxy offline, its timeline and first connection still readable', async () => {
    const client = await connectAndAcceptEverything();
    client.close();
    await fixture.timelineUntil(PROXY, (events) => count(events, 'stream-closed') === 1);

    expect((await fixture.get('/meshes/default/dataplanes/web-1/_status')).body).toMatchObject({ online: false, subscriptions: [] });
    expect((await fixture.get('/meshes/default/dataplanes/web-1/_first-config')).body).toMatchObject({ open: false, total: { complete: true } });
  });

  describe('answers 404 with a JSON error naming an unknown proxy', () => {
    for (const suffix of ['xds', '_status', '_timeline', '_first-config', '_history', '_history/1']) {
      it(suffix, async () => {
        const { status, body } = await fixture.get(`/meshes/default/dataplanes/ghost-1/${suffix}`);
        expect(status).toBe(404);
        expect(body).toMatchObject({ title: 'Could not find a proxy', details: expect.stringContaining('"default.ghost-1"') });
      });
    }
  });
});
