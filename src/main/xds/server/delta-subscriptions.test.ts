import { status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { resourceVersion } from './snapshot.js';
import { fixtureSnapshot } from './testing/fixtures.js';
import { AdsTestbed, NODE_ID } from './testing/ads-testbed.js';
import { eventually } from '../../../../test/support/eventually.js';

let bed: AdsTestbed;

beforeEach(() => {
  bed = new AdsTestbed();
});

afterEach(async () => {
  await bed.close();
});

async function deltaClient() {
  const { port, server } = await bed.start();
  return { client: bed.deltaClient(port), server };
}

/** The content version the server gives cluster `name` (fixtures make the same cluster for the same name). */
function clusterVersion(name: string): string {
  return resourceVersion(fixtureSnapshot('any', { clusters: [name] }).get(CLUSTER_TYPE_URL)!.resources.get(name)!);
}

const names = (response: { resources: Array<{ name: string }> }) => response.resources.map(({ name }) => name);

describe('Delta ADS: node and type URL', () => {
  test('node is taken from the first request and reused for later ones that omit it', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a'], endpoints: [['a', 1]] });
    client.send(CLUSTER_TYPE_URL); // carries the node
    client.ack(await client.next()); // does not
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] }); // does not
    expect(names(await client.next())).toEqual(['a']);
    const requests = bed.recorder.of('request');
    expect(requests.map((event) => event.node.id)).toEqual([NODE_ID, NODE_ID, NODE_ID]);
    expect(requests.map((event) => event.request.node?.id)).toEqual([NODE_ID, undefined, undefined]);
    expect(bed.recorder.of('open').map((event) => event.protocol)).toEqual(['delta']);
  });

  test('a first request without node id closes the stream with INVALID_ARGUMENT', async () => {
    const { client } = await deltaClient();
    client.send(CLUSTER_TYPE_URL, { node: null });
    const { code, details } = await client.status;
    expect(code).toBe(status.INVALID_ARGUMENT);
    expect(details).toMatch(/first DeltaDiscoveryRequest .* carries no node\.id/);
  });

  test('type URL is required on ADS: a request without one closes the stream with INVALID_ARGUMENT', async () => {
    const { client } = await deltaClient();
    client.send('');
    const { code, details } = await client.status;
    expect(code).toBe(status.INVALID_ARGUMENT);
    expect(details).toBe(`proxy "${NODE_ID}" sent a DeltaDiscoveryRequest without type_url, which ADS requires`);
  });
});

describe('Delta ADS: first request of a type', () => {
  for (const [short, typeUrl] of [['CDS', CLUSTER_TYPE_URL], ['LDS', LISTENER_TYPE_URL]] as const) {
    test(`an empty first ${short} subscribe is a wildcard: every resource, and new ones as they come`, async () => {
      const { client } = await deltaClient();
      bed.setSnapshot('v1', { clusters: ['a', 'b'], listeners: [['a', 'r'], ['b', 'r']] });
      client.send(typeUrl);
      expect(names(await client.next())).toEqual(['a', 'b']);
      bed.setSnapshot('v2', { clusters: ['a', 'b', 'c'], listeners: [['a', 'r'], ['b', 'r'], ['c', 'r']] });
      expect(names(await client.next())).toEqual(['c']);
    });

    test(`a first wildcard ${short} request is answered even when there is nothing to send`, async () => {
      const { client } = await deltaClient();
      bed.setSnapshot('v1', { clusters: [], listeners: [] });
      client.send(typeUrl);
      const response = await client.next();
      expect([response.type_url, response.system_version_info, response.resources, response.removed_resources]).toEqual([typeUrl, 'v1', [], []]);
    });
  }

  for (const [short, typeUrl] of [['EDS', ENDPOINT_TYPE_URL], ['RDS', ROUTE_TYPE_URL]] as const) {
    test(`an empty first ${short} subscribe is no wildcard: nothing is sent`, async () => {
      const { client } = await deltaClient();
      bed.setSnapshot('v1', { endpoints: [['a', 1]], routes: [['a', 'c']] });
      client.send(typeUrl);
      expect(await client.barrier()).toEqual([]);
    });
  }

  test('"*" subscribes any type to the wildcard', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { endpoints: [['a', 1], ['b', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['*'] });
    expect(names(await client.next())).toEqual(['a', 'b']);
  });

  test('initial_resource_versions: what the client already has at that version is not sent again', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['kept', 'changed', 'new'] });
    client.send(CLUSTER_TYPE_URL, {
      initialVersions: { kept: clusterVersion('kept'), changed: 'an-older-version', gone: clusterVersion('gone') },
    });
    const response = await client.next();
    expect(names(response)).toEqual(['changed', 'new']);
    expect(response.removed_resources).toEqual(['gone']);
  });

  test('initial_resource_versions hold for names subscribed in the same request', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a', 'b'] });
    client.send(CLUSTER_TYPE_URL, { subscribe: ['a', 'b'], initialVersions: { a: clusterVersion('a') } });
    expect(names(await client.next())).toEqual(['b']);
  });
});

describe('Delta ADS: subscribe and unsubscribe', () => {
  test('a later subscribe gets only the resources it adds', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { endpoints: [['a', 1], ['b', 1], ['c', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    client.ack(await client.next(), { subscribe: ['b', 'c'] });
    expect(names(await client.next())).toEqual(['b', 'c']);
  });

  test('subscribing again to a resource the client has sends it again (it may have dropped it)', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { endpoints: [['a', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    client.ack(await client.next());
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    expect(names(await client.next())).toEqual(['a']);
  });

  test('a subscription to a name that does not exist yet is served when it appears', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { endpoints: [['a', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['later'] });
    expect(await client.barrier()).toEqual([]);
    bed.setSnapshot('v2', { endpoints: [['a', 1], ['later', 1]] });
    expect(names(await client.next())).toEqual(['later']);
  });

  test('an unsubscribed resource is neither updated nor removed, and subscribing again sends it', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { endpoints: [['a', 1], ['b', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a', 'b'] });
    client.ack(await client.next(), { unsubscribe: ['b'] });
    expect(await client.barrier()).toEqual([]);
    bed.setSnapshot('v2', { endpoints: [['a', 1], ['b', 2]] });
    bed.setSnapshot('v3', { endpoints: [['a', 1]] });
    expect(await client.barrier()).toEqual([]);
    bed.setSnapshot('v4', { endpoints: [['a', 1], ['b', 2]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['b'] });
    expect(names(await client.next())).toEqual(['b']);
  });

  test('unsubscribing a name the wildcard still covers tells the client where it stands: sent again, or removed', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a', 'b'] });
    client.send(CLUSTER_TYPE_URL, { subscribe: ['*', 'a', 'b'] });
    client.ack(await client.next(), { unsubscribe: ['a'] });
    const again = await client.next();
    expect(names(again)).toEqual(['a']);
    client.ack(again);
    expect(await client.barrier()).toEqual([]);
    bed.setSnapshot('v2', { clusters: ['a'] }); // b is gone before the client lets go of it
    const removal = await client.next();
    client.ack(removal, { unsubscribe: ['b'] });
    expect(removal.removed_resources).toEqual(['b']);
    expect(await client.barrier()).toEqual([]);
  });

  test('unsubscribing "*" leaves the wildcard: only explicitly subscribed resources are followed', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a', 'b'] });
    client.send(CLUSTER_TYPE_URL, { subscribe: ['a'] }); // a named first request: no wildcard…
    client.ack(await client.next(), { subscribe: ['*'] }); // …until "*"
    expect(names(await client.next())).toEqual(['b']);
    client.send(CLUSTER_TYPE_URL, { unsubscribe: ['*'] });
    expect(await client.barrier()).toEqual([]);
    bed.setSnapshot('v2', { clusters: ['a', 'b', 'c'] });
    expect(await client.barrier()).toEqual([]);
  });

  test('the server shows each stream with its protocol and subscription', async () => {
    const { client, server } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a'], endpoints: [['a', 1]] });
    client.send(CLUSTER_TYPE_URL);
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    await client.next();
    await client.next();
    const [stream] = server.streams();
    expect(stream?.protocol).toBe('delta');
    expect(stream?.subscriptions.map(({ typeUrl, wildcard, names }) => ({ typeUrl, wildcard, names }))).toEqual([
      { typeUrl: CLUSTER_TYPE_URL, wildcard: true, names: [] },
      { typeUrl: ENDPOINT_TYPE_URL, wildcard: false, names: ['a'] },
    ]);
  });
});

describe('Delta ADS: requests waiting behind a hook', () => {
  test('one waiting request per type: the subscription changes of the ones it replaced are kept, in order', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const handled: string[][] = [];
    const { port, server } = await bed.start({
      callbacks: [
        {
          onStreamRequest: async ({ request }) => {
            if (request.type_url === CLUSTER_TYPE_URL) return held; // the first request holds the stream up
            if (request.type_url !== ENDPOINT_TYPE_URL) return;
            const delta = request as { resource_names_subscribe: string[]; resource_names_unsubscribe: string[] };
            handled.push([...delta.resource_names_subscribe.map((name) => `+${name}`), ...delta.resource_names_unsubscribe.map((name) => `-${name}`)]);
          },
        },
      ],
    });
    const client = bed.deltaClient(port);
    bed.setSnapshot('v1', { clusters: ['a', 'b', 'c'], endpoints: [['a', 1], ['b', 1], ['c', 1]] });
    client.send(CLUSTER_TYPE_URL);
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['b'] });
    client.send(ENDPOINT_TYPE_URL, { unsubscribe: ['a'] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['c'] });
    // A stream's messages arrive in order: once this LDS request waits, so did every EDS one before it.
    client.send(LISTENER_TYPE_URL);
    await eventually(() => expect(server.streams()[0]?.waitingRequests).toEqual([ENDPOINT_TYPE_URL, LISTENER_TYPE_URL]));
    await eventually(() => expect(bed.recorder.of('request')).toHaveLength(0)); // the CDS request is still in its hook
    release();

    expect(names(await client.next())).toEqual(['a', 'b', 'c']); // CDS
    expect(names(await client.next())).toEqual(['b', 'c']); // EDS: a was subscribed, then unsubscribed
    expect(handled).toEqual([['+b', '+c', '-a']]);
  });
});
