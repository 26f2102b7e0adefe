import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CLUSTER_TYPE_URL } from '../protocol/type-urls.js';
import { fixtureSnapshot } from '../server/testing/fixtures.js';
import { PROBE_TYPE_URL, withProbe } from '../server/testing/raw-ads-client.js';
import { eventually } from '../../../../test/support/eventually.js';
import type { Callbacks } from '../server/callbacks.js';
import { NackBackoff } from './nack-backoff.js';
import { TestControlPlane } from './testing/control-plane.js';
import { GatedSleep } from './testing/sleeps.js';

let controlPlane: TestControlPlane;
let gate: GatedSleep;
let port: number;

beforeEach(async () => {
  controlPlane = await TestControlPlane.start();
  gate = new GatedSleep();
  port = await controlPlane.serve([new NackBackoff({ settings: controlPlane.settings, sleep: gate.sleep })]);
});

afterEach(async () => {
  gate.releaseAll();
  await controlPlane.close();
});

function setClusters(nodeId: string, version: string): void {
  controlPlane.snapshots.setSnapshot(nodeId, withProbe(fixtureSnapshot(version, { clusters: [`cluster-${version}`] })));
}

/** The version of the last CDS response the server wrote to this node's stream. */
function lastSentClusters(nodeId: string): string | undefined {
  return controlPlane.stream(nodeId)?.subscriptions.find((subscription) => subscription.typeUrl === CLUSTER_TYPE_URL)?.lastSent?.version;
}

/** A proxy subscribed to CDS that has received version v1. */
async function proxyWithClusters(nodeId: string) {
  const client = controlPlane.proxy(port, { id: nodeId });
  setClusters(nodeId, 'v1');
  client.send(CLUSTER_TYPE_URL);
  return { client, response: await client.next() };
}

describe('NACK backoff', () => {
  test('holds back only the NACKing stream, for the backoff in force, before answering it again', async () => {
    controlPlane.settings.update({ 'xds.nackBackoff': '3s' });
    const rejecting = await proxyWithClusters('default.rejecting');
    const accepting = await proxyWithClusters('default.accepting');

    rejecting.client.nack(rejecting.response, 'cluster-v1: unknown field');
    accepting.client.ack(accepting.response);
    await gate.started(1);
    setClusters('default.rejecting', 'v2');
    setClusters('default.accepting', 'v2');

    // The accepting proxy goes on while the rejecting one waits…
    expect((await accepting.client.next()).version_info).toBe('v2');
    expect(await accepting.client.barrier()).toEqual([]);
    expect(gate.requested).toEqual([3000]);
    expect(lastSentClusters('default.rejecting')).toBe('v1');

    // …and is answered once its backoff is over.
    gate.releaseAll();
    expect((await rejecting.client.next()).version_info).toBe('v2');
  });

  test('lets first requests and ACKs through without waiting', async () => {
    const { client, response } = await proxyWithClusters('default.backend-1');
    client.ack(response);
    setClusters('default.backend-1', 'v2');

    expect((await client.next()).version_info).toBe('v2');
    expect(await client.barrier()).toEqual([]);
    expect(gate.requested).toEqual([]);
  });

  test('backs off a NACK that arrives stale too (as Kuma does), so a fast-changing config is not answered every round trip', async () => {
    const { client, response: v1 } = await proxyWithClusters('default.backend-1');
    setClusters('default.backend-1', 'v2'); // pushed before the proxy's NACK of v1 arrives
    const v2 = await client.next();

    client.nack(v1, 'cluster-v1: rejected'); // stale: v2 was sent since
    await gate.started(1);
    setClusters('default.backend-1', 'v3');
    client.nack(v2, 'cluster-v2: rejected');

    expect(gate.requested).toEqual([5000]);
    expect(lastSentClusters('default.backend-1')).toBe('v2'); // v3 waits behind the backoff
    gate.releaseAll();
    await gate.started(2);
    gate.releaseAll();
    expect((await client.next()).version_info).toBe('v3');
  });

  test('holds at most one waiting request per type behind a backoff, however many the proxy sends (the latest one)', async () => {
    const handled: string[] = [];
    const counting: Callbacks = { onStreamRequest: ({ request }) => void handled.push(request.type_url) };
    const countedPort = await controlPlane.serve([counting, new NackBackoff({ settings: controlPlane.settings, sleep: gate.sleep })]);
    const client = controlPlane.proxy(countedPort, { id: 'default.flood' });
    setClusters('default.flood', 'v1');
    client.send(CLUSTER_TYPE_URL);
    const v1 = await client.next();
    client.nack(v1, 'rejected');
    await gate.started(1);

    for (let index = 0; index < 5000; index++) client.nack(v1, `rejected again (${index})`);
    let through = false;
    void client.barrier().then(() => (through = true));
    // The barrier's request arrived after every NACK: all of them are in, behind the backoff.
    await eventually(() => expect(controlPlane.stream('default.flood')?.waitingRequests).toEqual([CLUSTER_TYPE_URL, PROBE_TYPE_URL]));
    while (!through) {
      gate.releaseAll();
      await new Promise((resolve) => setImmediate(resolve));
    }

    // The first request, the first NACK, then only the latest of the 5,000 that waited.
    expect(handled.filter((typeUrl) => typeUrl === CLUSTER_TYPE_URL)).toHaveLength(3);
  });

  test('reads the backoff in force at each NACK', async () => {
    const { client, response } = await proxyWithClusters('default.backend-1');
    controlPlane.settings.update({ 'xds.nackBackoff': '2s' });
    client.nack(response, 'rejected once');
    await gate.started(1);
    gate.releaseAll();
    setClusters('default.backend-1', 'v2');
    const second = await client.next();

    controlPlane.settings.update({ 'xds.nackBackoff': '500ms' });
    client.nack(second, 'rejected twice');
    await gate.started(2);

    expect(gate.requested).toEqual([2000, 500]);
  });
});
