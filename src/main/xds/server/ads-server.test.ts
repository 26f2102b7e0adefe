import * as grpc from '@grpc/grpc-js';
import { status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { adsServiceDefinition } from '../protocol/ads-service.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { AdsServer, type AdsServerOptions } from './ads-server.js';
import { StreamError, type Callbacks } from './callbacks.js';
import { AdsTestbed, EVERYTHING, NODE_ID } from './testing/ads-testbed.js';
import { fixtureSnapshot, type FixtureNames } from './testing/fixtures.js';
import { PROBE_TYPE_URL, RawAdsClient, resourceNames } from './testing/raw-ads-client.js';

let bed: AdsTestbed;

beforeEach(() => {
  bed = new AdsTestbed();
});

afterEach(async () => {
  await bed.close();
});

type ServerOptions = Partial<AdsServerOptions> & { callbacks?: Callbacks[] };

/** Starts a server on an ephemeral loopback port; the recorder is always the last callback. */
async function startServer(options: ServerOptions = {}): Promise<{ server: AdsServer; port: number }> {
  return bed.start(options);
}

function newClient(port: number, nodeId = NODE_ID): RawAdsClient {
  return bed.sotwClient(port, { id: nodeId });
}

async function serverAndClient(options: ServerOptions = {}) {
  const { server, port } = await startServer(options);
  return { server, port, client: newClient(port) };
}

function setSnapshot(version: string, names: FixtureNames, nodeId = NODE_ID): void {
  bed.setSnapshot(version, names, nodeId);
}

describe('ADS server, State of the World', () => {
  test('nonce is unique per response within a stream', async () => {
    const { client } = await serverAndClient();
    setSnapshot('v1', { clusters: ['a'], endpoints: [['a', 1]] });
    client.send(CLUSTER_TYPE_URL);
    client.send(ENDPOINT_TYPE_URL, { names: ['a'] });
    const nonces = [(await client.next()).nonce, (await client.next()).nonce];
    for (const [version, port] of [['v2', 2], ['v3', 3]] as const) {
      setSnapshot(version, { clusters: ['a', `b-${version}`], endpoints: [['a', port]] });
      nonces.push((await client.next()).nonce, (await client.next()).nonce);
    }
    expect(new Set(nonces).size).toBe(6);
  });

  test('node is taken from the first request; later requests may omit it', async () => {
    const { client } = await serverAndClient();
    setSnapshot('v1', { clusters: ['a'], endpoints: [['a', 1]] });
    client.send(CLUSTER_TYPE_URL); // carries the node
    client.ack(await client.next()); // does not
    client.send(ENDPOINT_TYPE_URL, { names: ['a'] }); // does not
    expect(resourceNames(await client.next())).toEqual(['a']);
    expect(bed.recorder.of('request').map((event) => event.node.id)).toEqual([NODE_ID, NODE_ID, NODE_ID]);
    expect(bed.recorder.of('request').map((event) => event.request.node?.id)).toEqual([NODE_ID, undefined, undefined]);
  });

  test('a first request without node id closes the stream with INVALID_ARGUMENT', async () => {
    const { client } = await serverAndClient();
    client.send(CLUSTER_TYPE_URL, { node: null });
    const { code, details } = await client.status;
    expect(code).toBe(status.INVALID_ARGUMENT);
    expect(details).toMatch(/carries no node\.id/);
  });

  test('version_info is per type', async () => {
    const { client } = await serverAndClient();
    bed.cache.setSnapshot(
      NODE_ID,
      new Map([
        [CLUSTER_TYPE_URL, { ...fixtureSnapshot('clusters-1', { clusters: ['a'] }).get(CLUSTER_TYPE_URL)! }],
        [ENDPOINT_TYPE_URL, { ...fixtureSnapshot('endpoints-7', { endpoints: [['a', 1]] }).get(ENDPOINT_TYPE_URL)! }],
      ]),
    );
    client.send(CLUSTER_TYPE_URL);
    client.send(ENDPOINT_TYPE_URL, { names: ['a'] });
    expect([(await client.next()).version_info, (await client.next()).version_info]).toEqual(['clusters-1', 'endpoints-7']);
  });

  test('a request is classified once as initial, ack, nack or stale for the callbacks', async () => {
    const { client } = await serverAndClient();
    setSnapshot('v1', { endpoints: [['a', 1]] });
    client.send(ENDPOINT_TYPE_URL, { names: ['a'] });
    const first = await client.next();
    client.ack(first);
    await client.barrier(); // the ACK is handled before v2 is pushed (else the ACK itself would be stale)
    setSnapshot('v2', { endpoints: [['a', 2]] });
    const second = await client.next();
    client.send(ENDPOINT_TYPE_URL, { nonce: first.nonce }); // older nonce
    client.nack(second, 'port 2 is not allowed');
    await client.barrier();
    const kinds = bed.recorder.of('request').filter((event) => event.request.type_url === ENDPOINT_TYPE_URL);
    expect(kinds.map((event) => [event.classification.kind, event.classification.subscriptionChanged])).toEqual([
      ['initial', true],
      ['ack', false],
      ['stale', false],
      ['nack', false],
    ]);
  });

  test('stale nonce is ignored entirely, its resource names included', async () => {
    const { client, server } = await serverAndClient();
    setSnapshot('v1', { endpoints: [['a', 1], ['b', 1]] });
    client.send(ENDPOINT_TYPE_URL, { names: ['a'] });
    const first = await client.next();
    setSnapshot('v2', { endpoints: [['a', 2], ['b', 1]] });
    await client.next(); // nonce 2: the client has not acked it yet
    client.send(ENDPOINT_TYPE_URL, { names: ['a', 'b'], nonce: first.nonce }); // b exists: were it not stale, it would be sent

    expect(await client.barrier()).toEqual([]);
    const endpoints = server.streams()[0]!.subscriptions.find((subscription) => subscription.typeUrl === ENDPOINT_TYPE_URL)!;
    expect(endpoints.names).toEqual(['a']);
  });

  test('NACK keeps the last good state: nothing is re-sent until the configuration changes', async () => {
    const { client, server } = await serverAndClient();
    setSnapshot('v1', { endpoints: [['a', 1]] });
    client.send(ENDPOINT_TYPE_URL, { names: ['a'] });
    client.ack(await client.next());
    await client.barrier();
    setSnapshot('v2', { endpoints: [['a', 2]] });
    const rejected = await client.next();
    client.nack(rejected, 'port 2 is not allowed');

    expect(await client.barrier()).toEqual([]);
    const endpoints = server.streams()[0]!.subscriptions.find((subscription) => subscription.typeUrl === ENDPOINT_TYPE_URL)!;
    expect(endpoints.lastAcked).toEqual({ version: 'v1', nonce: '1' });
    expect(endpoints.lastNack).toMatchObject({
      nonce: rejected.nonce,
      rejectedVersion: 'v2',
      acceptedVersion: 'v1',
      errorDetail: { message: 'port 2 is not allowed' },
    });

    setSnapshot('v3', { endpoints: [['a', 3]] });
    expect((await client.next()).version_info).toBe('v3');
  });

  describe.each([
    ['LDS', LISTENER_TYPE_URL, (names: string[]): FixtureNames => ({ listeners: names.map((name) => [name, `route-of-${name}`]) })],
    ['CDS', CLUSTER_TYPE_URL, (names: string[]): FixtureNames => ({ clusters: names })],
  ])('%s', (_short, typeUrl, snapshotOf) => {
    test(`${_short} response holds every resource, and a missing one means deleted`, async () => {
      const { client } = await serverAndClient();
      setSnapshot('v1', snapshotOf(['one', 'two']));
      client.send(typeUrl);
      const first = await client.next();
      expect(resourceNames(first)).toEqual(['one', 'two']);
      client.ack(first);
      setSnapshot('v2', snapshotOf(['one', 'two', 'three']));
      const second = await client.next();
      expect(resourceNames(second)).toEqual(['one', 'two', 'three']);
      client.ack(second);
      setSnapshot('v3', snapshotOf(['two', 'three']));
      expect(resourceNames(await client.next())).toEqual(['two', 'three']);
    });

    test(`an empty first ${_short} request is a wildcard, and so is "*"`, async () => {
      const { client, port } = await serverAndClient();
      setSnapshot('v1', snapshotOf(['one', 'two']));
      client.send(typeUrl);
      expect(resourceNames(await client.next())).toEqual(['one', 'two']);

      const explicit = newClient(port);
      explicit.send(typeUrl, { names: ['*'] });
      expect(resourceNames(await explicit.next())).toEqual(['one', 'two']);
    });

    test(`a ${_short} subscription by name is answered even when the name does not exist (it is then known deleted)`, async () => {
      const { client } = await serverAndClient();
      setSnapshot('v1', snapshotOf(['one']));
      client.send(typeUrl, { names: ['missing'] });
      const response = await client.next();
      expect(resourceNames(response)).toEqual([]);
      client.ack(response, ['missing', 'one']);
      expect(resourceNames(await client.next())).toEqual(['one']);
    });
  });

  describe.each([
    // `changed` names get different content.
    ['EDS', ENDPOINT_TYPE_URL, (names: string[], changed: string[] = []): FixtureNames => ({
      endpoints: names.map((name) => [name, changed.includes(name) ? 2 : 1]),
    })],
    ['RDS', ROUTE_TYPE_URL, (names: string[], changed: string[] = []): FixtureNames => ({
      routes: names.map((name) => [name, changed.includes(name) ? 'cluster-2' : 'cluster-1']),
    })],
  ])('%s', (short, typeUrl, snapshotOf) => {
    test(`${short} answers only the requested names`, async () => {
      const { client } = await serverAndClient();
      setSnapshot('v1', snapshotOf(['a', 'b', 'c']));
      client.send(typeUrl, { names: ['c', 'a'] });
      const response = await client.next();
      expect(resourceNames(response).sort()).toEqual(['a', 'c']);
      client.ack(response);
      // Only b (not subscribed) changes: nothing to send.
      setSnapshot('v2', snapshotOf(['a', 'b', 'c'], ['b']));
      expect(await client.barrier()).toEqual([]);
    });

    test(`a ${short} request without names subscribes to nothing (no wildcard for ${short})`, async () => {
      const { client } = await serverAndClient();
      setSnapshot('v1', snapshotOf(['a']));
      client.send(typeUrl, { names: [] });
      expect(await client.barrier()).toEqual([]);
    });

    test(`subscription to a not-yet-existing ${short} name is served when it appears`, async () => {
      const { client } = await serverAndClient();
      setSnapshot('v1', snapshotOf(['a']));
      client.send(typeUrl, { names: ['later'] });
      expect(await client.barrier()).toEqual([]);
      setSnapshot('v2', snapshotOf(['a', 'later']));
      const response = await client.next();
      expect(response.version_info).toBe('v2');
      expect(resourceNames(response)).toEqual(['later']);
    });

    test(`a grown ${short} subscription gets its resources; a shrunk one gets nothing`, async () => {
      const { client } = await serverAndClient();
      setSnapshot('v1', snapshotOf(['a', 'b']));
      client.send(typeUrl, { names: ['a'] });
      const first = await client.next();
      client.ack(first, ['a', 'b']);
      const grown = await client.next();
      expect(resourceNames(grown).sort()).toEqual(['a', 'b']);
      client.ack(grown, ['b']);
      expect(await client.barrier()).toEqual([]);
    });
  });

  test('send only when the subscribed resources changed: a new version with the same content sends nothing', async () => {
    const { client } = await serverAndClient();
    setSnapshot('v1', EVERYTHING);
    client.send(CLUSTER_TYPE_URL);
    client.ack(await client.next());
    setSnapshot('v2', EVERYTHING);
    expect(await client.barrier()).toEqual([]);
  });

  test('a new stream gets its resources, even when it says it already has that version', async () => {
    const { client, port } = await serverAndClient();
    setSnapshot('v1', EVERYTHING);
    client.send(CLUSTER_TYPE_URL);
    expect((await client.next()).version_info).toBe('v1');

    const reconnected = newClient(port);
    reconnected.send(CLUSTER_TYPE_URL, { version: 'v1' });
    expect(resourceNames(await reconnected.next())).toEqual(['cluster']);
  });

  test('push order is CDS, EDS, LDS, RDS when several types change at once', async () => {
    const { client } = await serverAndClient();
    setSnapshot('v1', EVERYTHING);
    // Subscribe in the order a proxyless client does: LDS, RDS, CDS, EDS.
    client.send(LISTENER_TYPE_URL);
    client.ack(await client.next());
    client.send(ROUTE_TYPE_URL, { names: ['route'] });
    client.ack(await client.next());
    client.send(CLUSTER_TYPE_URL);
    client.ack(await client.next());
    client.send(ENDPOINT_TYPE_URL, { names: ['cluster', 'cluster-2'] });
    client.ack(await client.next());

    setSnapshot('v2', {
      listeners: [['listener', 'route-2']],
      routes: [['route', 'cluster-2']],
      clusters: ['cluster', 'cluster-2'],
      endpoints: [['cluster', 1], ['cluster-2', 2]],
    });
    const order = [];
    for (let i = 0; i < 4; i++) order.push((await client.next()).type_url);
    expect(order).toEqual([CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL]);
  });

  test('no name twice in a response, however often it is requested', async () => {
    const { client } = await serverAndClient();
    setSnapshot('v1', { listeners: [['one', 'route']], endpoints: [['a', 1]] });
    client.send(ENDPOINT_TYPE_URL, { names: ['a', 'a', 'a'] });
    expect(resourceNames(await client.next())).toEqual(['a']);
    client.send(LISTENER_TYPE_URL, { names: ['*', 'one', 'one'] });
    expect(resourceNames(await client.next())).toEqual(['one']);
  });

  test('oversized response is not sent; the error names the proxy and the type', async () => {
    const { client, server } = await serverAndClient({ maxResponseBytes: 1_000 });
    const many = Array.from({ length: 30 }, (_, index) => `cluster-with-a-long-name-${index}`);
    setSnapshot('big', { clusters: many });
    client.send(CLUSTER_TYPE_URL);

    expect(await client.barrier()).toEqual([]);
    const dropped = await bed.recorder.waitFor('dropped');
    expect(dropped.error.message).toMatch(/cds response version big for proxy "default\.client" is \d+ bytes, over the 1000-byte limit/);
    expect(server.streams()[0]!.subscriptions.find((s) => s.typeUrl === CLUSTER_TYPE_URL)!.lastDropped?.version).toBe('big');

    setSnapshot('small', { clusters: many.slice(0, 2) });
    expect(resourceNames(await client.next())).toEqual(many.slice(0, 2));
  });

  test('callback error closes the stream with its status', async () => {
    const denied = new StreamError(status.PERMISSION_DENIED, `proxy "${NODE_ID}": you are trying to override existing proxy to which you don't have an access`);
    const { client } = await serverAndClient({ callbacks: [{ onStreamRequest: () => Promise.reject(denied) }] });
    client.send(CLUSTER_TYPE_URL);
    expect(await client.status).toMatchObject({ code: status.PERMISSION_DENIED, details: denied.message });
    // The recorder comes after the failing callback: the chain stopped before it, but close still reaches it.
    expect(bed.recorder.of('request')).toEqual([]);
    expect((await bed.recorder.waitFor('closed')).node?.id).toBe(NODE_ID);
  });

  test('callback error without a gRPC code closes the stream with INTERNAL', async () => {
    const { client } = await serverAndClient({ callbacks: [{ onStreamOpen: () => { throw new Error('store unavailable'); } }] });
    client.send(CLUSTER_TYPE_URL);
    expect(await client.status).toMatchObject({ code: status.INTERNAL, details: 'store unavailable' });
  });

  test('bytes that are not a DiscoveryRequest close the stream with INVALID_ARGUMENT, not INTERNAL', async () => {
    const { port } = await startServer();
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const call = client.makeBidiStreamRequest(adsServiceDefinition().StreamAggregatedResources.path, (bytes: Buffer) => bytes, (bytes: Buffer) => bytes);
    const finalStatus = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
    call.on('error', () => {}); // the status reports it
    call.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])); // field 0 with an unknown wire type

    expect(await finalStatus).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/^stream \d+ from .* sent a message that is not a DiscoveryRequest: /) });
    client.close();
  });

  test('requests of one stream are handled in order while another stream proceeds', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let slowStarted!: () => void;
    const slowWaiting = new Promise<void>((resolve) => (slowStarted = resolve));
    const handled: string[] = [];
    const slowFirstRequest: Callbacks = {
      async onStreamRequest({ node, request }) {
        if (node.id === 'default.slow' && handled.length === 0) {
          slowStarted();
          await gate;
        }
        handled.push(`${node.id} ${request.type_url}`);
      },
    };
    const { port } = await startServer({ callbacks: [slowFirstRequest] });
    setSnapshot('v1', EVERYTHING, 'default.slow');
    setSnapshot('v1', EVERYTHING, 'default.fast');
    const slow = newClient(port, 'default.slow');
    const fast = newClient(port, 'default.fast');

    slow.send(CLUSTER_TYPE_URL);
    slow.send(ENDPOINT_TYPE_URL, { names: ['cluster'] });
    slow.send(LISTENER_TYPE_URL);
    await slowWaiting;
    fast.send(CLUSTER_TYPE_URL);
    expect(resourceNames(await fast.next())).toEqual(['cluster']); // while the slow stream's first request waits

    release();
    const slowOrder = [(await slow.next()).type_url, (await slow.next()).type_url, (await slow.next()).type_url];
    expect(slowOrder).toEqual([CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL]);
    expect(handled).toEqual([
      `default.fast ${CLUSTER_TYPE_URL}`,
      `default.slow ${CLUSTER_TYPE_URL}`,
      `default.slow ${ENDPOINT_TYPE_URL}`,
      `default.slow ${LISTENER_TYPE_URL}`,
    ]);
  });

  test('streams() shows each stream: node, subscriptions, sent and acked versions', async () => {
    const { client, server } = await serverAndClient();
    setSnapshot('v1', EVERYTHING);
    client.send(CLUSTER_TYPE_URL);
    const response = await client.next();
    client.ack(response);
    await client.barrier();
    const [info] = server.streams();
    expect(server.streamCount).toBe(1);
    expect(info).toMatchObject({ nodeId: NODE_ID });
    expect(info!.subscriptions.find((s) => s.typeUrl === CLUSTER_TYPE_URL)).toEqual({
      typeUrl: CLUSTER_TYPE_URL,
      wildcard: true,
      names: [],
      lastSent: { version: 'v1', nonce: response.nonce, resourceNames: ['cluster'] },
      lastAcked: { version: 'v1', nonce: response.nonce },
      lastNack: undefined,
      lastDropped: undefined,
    });
    expect(info!.subscriptions.map((s) => s.typeUrl)).toEqual([CLUSTER_TYPE_URL, PROBE_TYPE_URL]);
  });

  test('stop ends every live stream with UNAVAILABLE and runs its close hooks', async () => {
    const { client, server } = await serverAndClient();
    setSnapshot('v1', EVERYTHING);
    client.send(CLUSTER_TYPE_URL);
    await client.next();
    await server.stop();
    expect(await client.status).toMatchObject({ code: status.UNAVAILABLE, details: 'control plane shutting down' });
    expect(bed.recorder.of('closed')).toHaveLength(1);
    expect(server.streamCount).toBe(0);
  });

  test('start names host and port when the port is taken', async () => {
    const { port } = await serverAndClient();
    const second = new AdsServer({ snapshots: bed.cache });
    await expect(second.start({ host: '127.0.0.1', port })).rejects.toThrow(`cannot start the ADS server on 127.0.0.1:${port}: port ${port} is already in use`);
  });
});
