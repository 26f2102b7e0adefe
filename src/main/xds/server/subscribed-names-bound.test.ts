import { status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { LONG_RUN } from '../../../../test/reliability/support/seeded-random.js';
import { eventually } from '../../../../test/support/eventually.js';
import { ENDPOINT_TYPE_URL } from '../protocol/type-urls.js';
import { MAX_SUBSCRIBED_NAMES_PER_STREAM } from './stream.js';
import { AdsTestbed, EVERYTHING } from './testing/ads-testbed.js';

let bed: AdsTestbed;

beforeEach(() => {
  bed = new AdsTestbed();
});

afterEach(async () => {
  await bed.close();
});

const endpointNames = (from: number, count: number) => Array.from({ length: count }, (_, index) => `cluster-${from + index}`);

describe('resource names subscribed on one stream', () => {
  test('delta: a stream that keeps subscribing new names is ended at the bound, with a status naming it, having taken no more than the bound', async () => {
    const { server, port } = await bed.start();
    bed.setSnapshot('v1', EVERYTHING);
    const client = bed.deltaClient(port);
    // Issue 27: 30 requests of 100,000 distinct names kept +1.4 GB for the stream's life.
    const requests = 30;
    const perRequest = LONG_RUN ? 100_000 : MAX_SUBSCRIBED_NAMES_PER_STREAM / 10;
    for (let request = 0; request < requests; request++) client.send(ENDPOINT_TYPE_URL, { subscribe: endpointNames(request * perRequest, perRequest) });

    // Read where the stream ended: a client still writing megabytes may see its connection reset before the status.
    const { ending } = await bed.recorder.waitFor('closed');
    expect(ending).toMatchObject({ by: 'control-plane', code: status.RESOURCE_EXHAUSTED });
    expect(ending.by === 'control-plane' && ending.details).toMatch(
      new RegExp(`^proxy "default.client" would subscribe to \\d+ resource names on stream 1 with this eds request; a stream may subscribe to at most ${MAX_SUBSCRIBED_NAMES_PER_STREAM} names, all types together$`),
    );
    await eventually(() => expect(server.streamCount).toBe(0));
    // Requests that came while one was handled were merged and refused before being handled; the
    // ones handled named at most the bound, and the one that went past it.
    const taken = bed.recorder.of('request').reduce((sum, { request }) => sum + ('resource_names_subscribe' in request ? request.resource_names_subscribe.length : 0), 0);
    expect(taken, `names taken from ${requests} requests of ${perRequest}`).toBeLessThanOrEqual(MAX_SUBSCRIBED_NAMES_PER_STREAM + perRequest);
  });

  test('delta: up to the bound is served; one name more ends the stream', async () => {
    const bound = 500;
    const { port } = await bed.start({ maxSubscribedNames: bound });
    bed.setSnapshot('v1', { ...EVERYTHING, endpoints: endpointNames(0, bound).map((name) => [name, 1]) });
    const client = bed.deltaClient(port);
    client.send(ENDPOINT_TYPE_URL, { subscribe: endpointNames(0, bound - 1) });
    expect((await client.next()).resources).toHaveLength(bound - 1);
    await client.barrier(); // the probe's one name makes `bound`
    client.send(ENDPOINT_TYPE_URL, { subscribe: endpointNames(bound, 1) });
    expect(await client.status).toMatchObject({
      code: status.RESOURCE_EXHAUSTED,
      details: `proxy "default.client" would subscribe to ${bound + 1} resource names on stream 1 with this eds request; a stream may subscribe to at most ${bound} names, all types together`,
    });
  });

  test('State of the World: a request naming more than the bound ends the stream', async () => {
    const bound = 500;
    const { port } = await bed.start({ maxSubscribedNames: bound });
    bed.setSnapshot('v1', EVERYTHING);
    const client = bed.sotwClient(port);
    client.send(ENDPOINT_TYPE_URL, { names: endpointNames(0, bound + 1) });
    expect(await client.status).toMatchObject({
      code: status.RESOURCE_EXHAUSTED,
      details: `proxy "default.client" would subscribe to ${bound + 1} resource names on stream 1 with this eds request; a stream may subscribe to at most ${bound} names, all types together`,
    });
  });
});
