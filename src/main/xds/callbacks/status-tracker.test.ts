import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from '../../metrics/metrics.js';
import type { DiscoveryResponse } from '../protocol/ads-service.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../protocol/type-urls.js';
import { AdsServer } from '../server/ads-server.js';
import { SnapshotCache } from '../server/snapshot-cache.js';
import { fixtureSnapshot } from '../server/testing/fixtures.js';
import { RawAdsClient } from '../server/testing/raw-ads-client.js';
import { RecordingCallbacks } from '../server/testing/recording-callbacks.js';
import { ProxyTimeline, now } from '../status/proxy-timeline.js';
import { StatusTracker } from './status-tracker.js';

const PROXY = 'default.web-1';

let timeline: ProxyTimeline;
let metrics: Metrics;
let tracker: StatusTracker;
/** After the tracker in the chain: once it has seen a request, so has the tracker. */
let recorder: RecordingCallbacks;
let cache: SnapshotCache;
let servers: AdsServer[];
let clients: RawAdsClient[];

beforeEach(() => {
  timeline = new ProxyTimeline();
  metrics = createMetrics();
  tracker = new StatusTracker({ timeline, metrics });
  recorder = new RecordingCallbacks();
  cache = new SnapshotCache();
  servers = [];
  clients = [];
});

afterEach(async () => {
  for (const client of clients) client.close();
  await Promise.all(servers.map((server) => server.stop()));
});

async function startServer(options: { maxResponseBytes?: number } = {}): Promise<number> {
  const server = new AdsServer({ snapshots: cache, callbacks: [tracker, recorder], ...options });
  servers.push(server);
  return server.start({ port: 0 });
}

/** A client whose stream the server has opened (the sync tracker only ever ticks after that). */
async function connect(port: number): Promise<RawAdsClient> {
  const opened = recorder.of('open').length;
  const client = new RawAdsClient(port, { id: PROXY });
  clients.push(client);
  await recorder.waitFor('open', () => recorder.of('open').length > opened);
  return client;
}

/** What the sync tracker does on a `changed` tick: set the snapshot, then record the tick with its versions. */
function publish(version: string, clusters: string[] = ['backend']): void {
  const snapshot = fixtureSnapshot(version, { clusters, listeners: [['outbound', 'route']] });
  cache.setSnapshot(PROXY, snapshot);
  timeline.record(PROXY, {
    kind: 'tick',
    at: now(),
    result: 'changed',
    durationMs: 0.1,
    versions: { [CLUSTER_TYPE_URL]: version, [LISTENER_TYPE_URL]: version },
  });
}

/** Resolves once the server (and so the tracker) has handled the n-th request of that kind. */
async function handled(kind: 'ack' | 'nack' | 'stale', count = 1): Promise<void> {
  await recorder.waitFor('request', () => recorder.of('request').filter((event) => event.classification.kind === kind).length >= count);
}

/** A client that took v1's clusters and ACKed them, once the server (and so the tracker) has handled the ACK. */
async function clientThatAckedV1(port: number): Promise<RawAdsClient> {
  const client = await connect(port);
  publish('v1');
  client.send(CLUSTER_TYPE_URL);
  client.ack(await client.next());
  await handled('ack');
  return client;
}

/** A server whose first connection ACKed v1's clusters and closed: a proxy seen online once. */
async function serverAfterOneConnection(): Promise<number> {
  const port = await startServer();
  (await clientThatAckedV1(port)).close();
  await recorder.waitFor('closed');
  return port;
}

function clusterStatus() {
  return tracker.status(PROXY)?.types.find((type) => type.typeUrl === CLUSTER_TYPE_URL);
}

async function deliveryCount(type: string): Promise<number> {
  const metric = await metrics.xdsDelivery.get();
  return metric.values.find((value) => value.metricName === 'xds_delivery_count' && value.labels.type === type)?.value ?? 0;
}

function kinds(): string[] {
  return timeline.events(PROXY).map((event) => event.kind);
}

describe('status tracker', () => {
  it('records per type what was sent and ACKed, with counts, and puts both on the timeline', async () => {
    const client = await connect(await startServer());
    publish('v1');
    client.send(CLUSTER_TYPE_URL);
    const response = await client.next();
    client.ack(response);
    await handled('ack');

    expect(clusterStatus()).toEqual({
      typeUrl: CLUSTER_TYPE_URL,
      type: 'cds',
      lastSent: { version: 'v1', nonce: response.nonce, resources: 1, at: expect.any(Number) },
      lastAcked: { version: 'v1', nonce: response.nonce, at: expect.any(Number) },
      counts: { responses: 1, acks: 1, nacks: 0, dropped: 0 },
    });
    expect(kinds()).toEqual(['tick', 'response', 'ack']);
    expect(timeline.events(PROXY).slice(1)).toMatchObject([
      { kind: 'response', typeUrl: CLUSTER_TYPE_URL, version: 'v1', nonce: response.nonce, resources: 1 },
      { kind: 'ack', typeUrl: CLUSTER_TYPE_URL, version: 'v1', nonce: response.nonce },
    ]);
  });

  it('shows a connected proxy online since its first request, with the peer of its stream', async () => {
    const client = await connect(await startServer());
    client.send(CLUSTER_TYPE_URL);
    await recorder.waitFor('request');

    const status = tracker.status(PROXY)!;
    expect(status).toMatchObject({ proxyId: PROXY, online: true, connections: 1, stream: { peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/) } });
    expect(status.since).toBeGreaterThanOrEqual(status.stream.openedAt);
    expect(status.types.map((type) => type.type)).toEqual(['cds']);
    expect(tracker.proxies().map((proxy) => proxy.proxyId)).toEqual([PROXY]);
  });

  it('records a NACK with the rejected version, the version kept and the error detail', async () => {
    const client = await clientThatAckedV1(await startServer());
    publish('v2', ['backend', 'redis']);
    const rejected = await client.next();
    client.nack(rejected, 'cluster redis: unknown field "foo"');
    await handled('nack');

    expect(clusterStatus()).toMatchObject({
      lastAcked: { version: 'v1' },
      lastNack: { rejectedVersion: 'v2', acceptedVersion: 'v1', nonce: rejected.nonce, error: 'cluster redis: unknown field "foo"' },
      counts: { responses: 2, acks: 1, nacks: 1 },
    });
    expect(timeline.events(PROXY).at(-1)).toMatchObject({
      kind: 'nack',
      typeUrl: CLUSTER_TYPE_URL,
      version: 'v2',
      nonce: rejected.nonce,
      error: 'cluster redis: unknown field "foo"',
    });
  });

  it('changes nothing on a stale request', async () => {
    const client = await connect(await startServer());
    publish('v1');
    client.send(CLUSTER_TYPE_URL);
    const first = await client.next();
    publish('v2', ['backend', 'redis']);
    await client.next();
    const before = tracker.status(PROXY);
    const eventsBefore = kinds();

    client.send(CLUSTER_TYPE_URL, { nonce: first.nonce, version: 'v1' }); // ACKs the older response
    await handled('stale');

    expect(tracker.status(PROXY)).toEqual(before);
    expect(kinds()).toEqual(eventsBefore);
    expect(clusterStatus()!.lastAcked).toBeUndefined();
  });

  it('observes xds_delivery once per ACKed version, from the tick that set it', async () => {
    const client = await clientThatAckedV1(await startServer());
    expect(await deliveryCount('cds')).toBe(1);

    publish('v2', ['backend', 'redis']);
    client.ack(await client.next());
    await handled('ack', 2);
    expect(await deliveryCount('cds')).toBe(2);
    expect(await deliveryCount('lds')).toBe(0); // never asked for, never ACKed
  });

  it('does not observe xds_delivery for a version no tick of this connection set', async () => {
    const client = await connect(await startServer());
    cache.setSnapshot(PROXY, fixtureSnapshot('untracked', { clusters: ['backend'] })); // no tick on the timeline
    client.send(CLUSTER_TYPE_URL);
    client.ack(await client.next());
    await handled('ack');

    expect(await deliveryCount('cds')).toBe(0);
    expect(clusterStatus()!.lastAcked?.version).toBe('untracked');
  });

  it('records a response that was too large to send', async () => {
    const client = await connect(await startServer({ maxResponseBytes: 200 }));
    publish('big', Array.from({ length: 20 }, (_, index) => `cluster-with-a-long-name-${index}`));
    client.send(CLUSTER_TYPE_URL);
    await recorder.waitFor('dropped');

    expect(clusterStatus()).toMatchObject({
      lastDropped: { version: 'big', error: expect.stringContaining('over the 200-byte limit') },
      counts: { responses: 0, dropped: 1 },
    });
    expect(timeline.events(PROXY).at(-1)).toMatchObject({ kind: 'response-dropped', typeUrl: CLUSTER_TYPE_URL, version: 'big' });
  });

  it('shows the proxy offline when its stream closes, and online again with fresh types when it reconnects', async () => {
    const port = await serverAfterOneConnection();

    const offline = tracker.status(PROXY)!;
    expect(offline).toMatchObject({ online: false, connections: 1, stream: { closedAt: offline.since } });
    expect(offline.types).toHaveLength(1); // the last stream's status stays readable

    const second = await connect(port);
    second.send(LISTENER_TYPE_URL);
    const response: DiscoveryResponse = await second.next();

    const online = tracker.status(PROXY)!;
    expect(online).toMatchObject({ online: true, connections: 2 });
    expect(online.stream.id).not.toBe(offline.stream.id);
    expect(online.types).toEqual([expect.objectContaining({ type: 'lds', lastSent: expect.objectContaining({ nonce: response.nonce }) })]);
  });

  it('does not count the re-delivery of a snapshot set for an earlier connection as xds_delivery', async () => {
    const port = await serverAfterOneConnection();

    const second = await connect(port);
    second.send(CLUSTER_TYPE_URL);
    const again = await second.next();
    expect(again.version_info).toBe('v1');
    second.ack(again);
    await handled('ack', 2);

    expect(await deliveryCount('cds')).toBe(1);
    expect(clusterStatus()!.lastAcked?.version).toBe('v1');
  });

  it('keeps a proxy online when an older stream of it closes after it reconnected', async () => {
    const port = await startServer();
    const old = await connect(port);
    old.send(CLUSTER_TYPE_URL);
    await recorder.waitFor('request');
    const replacement = await connect(port);
    replacement.send(CLUSTER_TYPE_URL);
    await recorder.waitFor('request', () => recorder.of('request').length === 2);

    old.close();
    await recorder.waitFor('closed');

    expect(tracker.status(PROXY)).toMatchObject({ online: true, connections: 2 });
  });

  it('forgets a proxy when told, and then knows nothing of it', async () => {
    const client = await connect(await startServer());
    client.send(CLUSTER_TYPE_URL);
    await recorder.waitFor('request');
    client.close();
    await recorder.waitFor('closed');

    tracker.forget(PROXY);

    expect(tracker.status(PROXY)).toBeUndefined();
    expect(tracker.proxies()).toEqual([]);
  });

  it('hands out copies: changing a status read changes nothing in the tracker', async () => {
    const client = await connect(await startServer());
    publish('v1');
    client.send(CLUSTER_TYPE_URL);
    await client.next();

    const status = tracker.status(PROXY)!;
    status.types[0]!.counts.responses = 99;
    status.stream.peer = 'elsewhere';

    expect(clusterStatus()!.counts.responses).toBe(1);
    expect(tracker.status(PROXY)!.stream.peer).not.toBe('elsewhere');
  });
});

describe('a stale proxy', () => {
  const withheld = [
    { typeUrl: CLUSTER_TYPE_URL, name: 'backend', reason: 'cannot encode cds resource "backend": connect_timeout: 999999999999s is longer than the longest duration', kept: true },
  ];
  const tick = (result: 'changed' | 'generated' | 'error', extra: object = {}) =>
    timeline.record(PROXY, { kind: 'tick', at: now(), result, durationMs: 0.1, ...extra });

  // Issue 27: the Proxies view said "configured" while no update reached the proxy.
  it('is configured but stale, since the first tick that withheld a resource and with its reason, until a tick sends everything', async () => {
    const client = await clientThatAckedV1(await startServer());
    const changes: (string | undefined)[] = [];
    tracker.onStateChange((status) => changes.push(status.stale?.reason));

    tick('changed', { versions: {}, withheld });
    const stale = tracker.status(PROXY)!;
    expect(stale.state).toBe('configured');
    expect(stale.stale).toEqual({ since: expect.any(Number), reason: `${withheld[0]!.reason}; the proxy keeps the one sent before` });
    tick('generated', { withheld });
    expect(tracker.status(PROXY)!.stale!.since).toBe(stale.stale!.since);
    tick('error', { detail: 'generator "outbound-proxy" failed' });
    expect(tracker.status(PROXY)!.stale).toEqual({ since: stale.stale!.since, reason: 'its configuration could not be generated: generator "outbound-proxy" failed' });

    tick('generated');
    expect(tracker.status(PROXY)!.stale).toBeUndefined();
    // Each change is announced (the terminal prints one line per change), the repeat is not.
    expect(changes).toEqual([stale.stale!.reason, 'its configuration could not be generated: generator "outbound-proxy" failed', undefined]);
    client.close();
  });
});
