import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { resourceVersion } from './snapshot.js';
import { fixtureSnapshot } from './testing/fixtures.js';
import { AdsTestbed, EVERYTHING } from './testing/ads-testbed.js';

let bed: AdsTestbed;

beforeEach(() => {
  bed = new AdsTestbed();
});

afterEach(async () => {
  await bed.close();
});

async function deltaClient(options: { maxResponseBytes?: number } = {}) {
  const { port, server } = await bed.start(options);
  return { client: bed.deltaClient(port), server, port };
}

const names = (response: { resources: Array<{ name: string }> }) => response.resources.map(({ name }) => name);

describe('Delta ADS: responses', () => {
  test('each resource carries its own version, the hash of its content: equal content, equal version on any stream', async () => {
    const { client, port } = await deltaClient();
    bed.setSnapshot('v1', { endpoints: [['a', 1], ['b', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a', 'b'] });
    const first = await client.next();
    const expected = fixtureSnapshot('v1', { endpoints: [['a', 1], ['b', 1]] }).get(ENDPOINT_TYPE_URL)!.resources;
    expect(first.resources.map(({ name, version }) => [name, version])).toEqual(
      [...expected].map(([name, resource]) => [name, resourceVersion(resource)]),
    );

    const other = bed.deltaClient(port, { id: 'default.other' });
    bed.setSnapshot('w7', { endpoints: [['a', 1]] }, 'default.other');
    other.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    expect((await other.next()).resources[0]!.version).toBe(first.resources[0]!.version);
  });

  test('an update carries only the resources that changed; system_version_info is the type version', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a', 'b'], endpoints: [['a', 1], ['b', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a', 'b'] });
    const first = await client.next();
    client.ack(first);
    await client.barrier();
    bed.setSnapshot('v2', { clusters: ['a', 'b'], endpoints: [['a', 1], ['b', 2]] });
    const second = await client.next();
    expect([first.system_version_info, second.system_version_info]).toEqual(['v1', 'v2']);
    expect(names(second)).toEqual(['b']);
    expect(second.resources[0]!.version).not.toBe(client.held(ENDPOINT_TYPE_URL).get('a'));
  });

  test('a new type version with the same content sends nothing', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a'] });
    client.send(CLUSTER_TYPE_URL);
    client.ack(await client.next());
    await client.barrier();
    bed.setSnapshot('v2', { clusters: ['a'] });
    expect(await client.barrier()).toEqual([]);
  });

  test('removed_resources names a subscribed resource that disappears, wildcard or not', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a', 'b'], endpoints: [['a', 1], ['b', 1]] });
    client.send(CLUSTER_TYPE_URL);
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a', 'b'] });
    client.ack(await client.next());
    client.ack(await client.next());
    await client.barrier();
    bed.setSnapshot('v2', { clusters: ['a'], endpoints: [['a', 1]] });
    const removals = [await client.next(), await client.next()];
    expect(removals.map((response) => [response.type_url, names(response), response.removed_resources])).toEqual([
      [CLUSTER_TYPE_URL, [], ['b']],
      [ENDPOINT_TYPE_URL, [], ['b']],
    ]);
    expect([...client.held(CLUSTER_TYPE_URL).keys()]).toEqual(['a']);
  });

  test('a resource the client never had is not named removed', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { endpoints: [['a', 1]] });
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a', 'missing'] });
    expect((await client.next()).removed_resources).toEqual([]);
  });

  test('push order is CDS, EDS, LDS, RDS when several types change at once', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', EVERYTHING);
    // Subscribed in the reverse order, so the order of the responses is the server's own.
    client.send(ROUTE_TYPE_URL, { subscribe: ['route'] });
    client.send(LISTENER_TYPE_URL);
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['cluster'] });
    client.send(CLUSTER_TYPE_URL);
    for (let index = 0; index < 4; index++) client.ack(await client.next());
    await client.barrier();
    bed.setSnapshot('v2', { ...EVERYTHING, endpoints: [['cluster', 2]], clusters: ['cluster', 'extra'], listeners: [['listener', 'route'], ['l2', 'route']], routes: [['route', 'extra']] });
    const order = [];
    for (let index = 0; index < 4; index++) order.push((await client.next()).type_url);
    expect(order).toEqual([CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL]);
  });

  test('nonces are unique per stream, across types', async () => {
    const { client } = await deltaClient();
    bed.setSnapshot('v1', { clusters: ['a'], endpoints: [['a', 1]] });
    client.send(CLUSTER_TYPE_URL);
    client.send(ENDPOINT_TYPE_URL, { subscribe: ['a'] });
    const nonces = [(await client.next()).nonce, (await client.next()).nonce];
    bed.setSnapshot('v2', { clusters: ['a', 'b'], endpoints: [['a', 2]] });
    nonces.push((await client.next()).nonce, (await client.next()).nonce);
    expect(new Set(nonces).size).toBe(4);
  });

  test('an oversized response is not sent; the callbacks are told, naming the proxy and the type', async () => {
    const { client } = await deltaClient({ maxResponseBytes: 200 });
    bed.setSnapshot('v1', { clusters: Array.from({ length: 10 }, (_, index) => `cluster-${index}`) });
    client.send(CLUSTER_TYPE_URL);
    const dropped = await bed.recorder.waitFor('dropped');
    expect(dropped.error.message).toMatch(/^cds response version v1 for proxy "default.client" is \d+ bytes, over the 200-byte limit/);
    expect(bed.recorder.of('response')).toEqual([]);
  });
});
