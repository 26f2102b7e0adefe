import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createMetrics } from '../../metrics/metrics.js';
import { NackBackoff } from '../callbacks/nack-backoff.js';
import { StatusTracker } from '../callbacks/status-tracker.js';
import { TestControlPlane } from '../callbacks/testing/control-plane.js';
import { GatedSleep } from '../callbacks/testing/sleeps.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL } from '../protocol/type-urls.js';
import { ProxyTimeline } from '../status/proxy-timeline.js';
import { fixtureSnapshot } from './testing/fixtures.js';
import { AdsTestbed, NODE_ID } from './testing/ads-testbed.js';
import { withProbe } from './testing/raw-ads-client.js';

let bed: AdsTestbed;

beforeEach(() => {
  bed = new AdsTestbed();
});

afterEach(async () => {
  await bed.close();
});

const names = (response: { resources: Array<{ name: string }> }) => response.resources.map(({ name }) => name);

/** The classifications the callbacks saw for one type, in order. */
function classifications(typeUrl: string) {
  return bed.recorder
    .of('request')
    .filter((event) => event.classification.typeUrl === typeUrl)
    .map(({ classification: { kind, version, subscriptionChanged } }) => ({ kind, version, subscriptionChanged }));
}

describe('Delta ADS: ACK and NACK', () => {
  test('a request is classified once as initial, ack, nack or update for the callbacks, with the version the client has', async () => {
    const { port } = await bed.start();
    const client = bed.deltaClient(port);
    bed.setSnapshot('v1', { endpoints: [['a', 1], ['b', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    client.ack(await client.next());
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['b'] }); // no nonce: only a subscription change
    const second = await client.next();
    client.nack(second, 'b is not allowed');
    await client.barrier();
    expect(classifications(ENDPOINT_TYPE_URL)).toEqual([
      { kind: 'initial', version: '', subscriptionChanged: true },
      { kind: 'ack', version: 'v1', subscriptionChanged: false },
      { kind: 'update', version: 'v1', subscriptionChanged: true },
      { kind: 'nack', version: 'v1', subscriptionChanged: false },
    ]);
  });

  test('every response is answered on its own: an ACK of an earlier response is an ACK, not stale', async () => {
    const { port } = await bed.start();
    const client = bed.deltaClient(port);
    bed.setSnapshot('v1', { clusters: ['a'] });
    client.send(CLUSTER_TYPE_URL);
    const first = await client.next();
    bed.setSnapshot('v2', { clusters: ['a', 'b'] });
    const second = await client.next(); // sent before the client answered the first
    client.ack(first);
    client.ack(second);
    await client.barrier();
    expect(classifications(CLUSTER_TYPE_URL).slice(1)).toEqual([
      { kind: 'ack', version: 'v1', subscriptionChanged: false },
      { kind: 'ack', version: 'v2', subscriptionChanged: false },
    ]);
  });

  test('subscription changes riding on an ACK apply, whatever nonce it echoes', async () => {
    const { port } = await bed.start();
    const client = bed.deltaClient(port);
    bed.setSnapshot('v1', { endpoints: [['a', 1], ['b', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    const first = await client.next();
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['b'], nonce: 'no-such-nonce' });
    expect(names(await client.next())).toEqual(['b']);
    client.ack(first);
    await client.barrier();
    expect(classifications(ENDPOINT_TYPE_URL).map(({ kind }) => kind)).toEqual(['initial', 'update', 'ack']);
  });

  test('NACK keeps the last good state: nothing is re-sent until the configuration changes', async () => {
    const { port } = await bed.start();
    const client = bed.deltaClient(port);
    bed.setSnapshot('v1', { clusters: ['a'] });
    client.send(CLUSTER_TYPE_URL);
    client.nack(await client.next(), 'cluster a: bad');
    expect(await client.barrier()).toEqual([]);
    bed.setSnapshot('v2', { clusters: ['a', 'b'] });
    expect(names(await client.next())).toEqual(['b']);
  });

  test('the status tracker records delta ACKs and NACKs, with versions, and the proxy protocol', async () => {
    const timeline = new ProxyTimeline();
    const tracker = new StatusTracker({ timeline, metrics: createMetrics() });
    const { port } = await bed.start({ callbacks: [tracker] });
    const client = bed.deltaClient(port);
    bed.setSnapshot('v1', { clusters: ['a'] });
    client.send(CLUSTER_TYPE_URL);
    const accepted = await client.next();
    client.ack(accepted);
    await client.barrier();
    bed.setSnapshot('v2', { clusters: ['a', 'b'] });
    const rejected = await client.next();
    client.nack(rejected, 'cluster b: unknown field "foo"');
    await client.barrier();

    const status = tracker.status(NODE_ID)!;
    expect(status.protocol).toBe('delta');
    expect(status.types.find((type) => type.typeUrl === CLUSTER_TYPE_URL)).toMatchObject({
      lastSent: { version: 'v2', nonce: rejected.nonce, resources: 1 },
      lastAcked: { version: 'v1', nonce: accepted.nonce },
      lastNack: { rejectedVersion: 'v2', acceptedVersion: 'v1', nonce: rejected.nonce, error: 'cluster b: unknown field "foo"' },
      counts: { responses: 2, acks: 1, nacks: 1, dropped: 0 },
    });
  });
});

describe('Delta ADS: NACK backoff', () => {
  let controlPlane: TestControlPlane;
  let gate: GatedSleep;

  beforeEach(async () => {
    controlPlane = await TestControlPlane.start();
    gate = new GatedSleep();
  });

  afterEach(async () => {
    gate.releaseAll();
    await controlPlane.close();
  });

  test('holds back the NACKing delta stream for the backoff in force before answering it again', async () => {
    const port = await controlPlane.serve([new NackBackoff({ settings: controlPlane.settings, sleep: gate.sleep })]);
    controlPlane.settings.update({ 'xds.nackBackoff': '3s' });
    const client = controlPlane.deltaProxy(port, { id: NODE_ID });
    const setClusters = (version: string, clusters: string[]) =>
      controlPlane.snapshots.setSnapshot(NODE_ID, withProbe(fixtureSnapshot(version, { clusters })));
    setClusters('v1', ['a']);
    client.send(CLUSTER_TYPE_URL);
    client.nack(await client.next(), 'cluster a: rejected');
    await gate.started(1);
    setClusters('v2', ['a', 'b']);

    expect(gate.requested).toEqual([3000]);
    expect(controlPlane.stream(NODE_ID)?.subscriptions[0]?.lastSent?.version).toBe('v1');
    gate.releaseAll();
    expect((await client.next()).system_version_info).toBe('v2');
  });
});
