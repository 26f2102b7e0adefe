// Issue 27: a large body is parsed and validated where it cannot stall the event loop that serves
// every other request and every proxy stream (a 250 KB YAML Dataplane took 1–3 s, a 1 MB JSON one 1.5 s).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { rawRequest, startTestCore } from '../support/core.js';
import { largeJsonDataplane, largeYamlDataplane } from '../support/large-bodies.js';

interface Answer {
  status: number;
  body: string;
}

/**
 * PUTs `body` and, the moment the server has read all of it, asks `GET /`: the order the two answers
 * come in. Client and server share this process's event loop, so a server that parses and validates
 * the PUT on it answers the GET only after the PUT. The server's side of the PUT is watched through
 * Node's own `http.server.request.start` channel: its `end` is the body read to the last byte.
 */
async function putWhileAsking(url: string, path: string, body: string): Promise<{ order: string[]; put: Answer }> {
  const order: string[] = [];
  let asked: Promise<void> | undefined;
  const onRequest = (message: unknown) => {
    const { request: received } = message as { request: IncomingMessage };
    if (received.method !== 'PUT' || received.url !== path) return;
    received.on('end', () => {
      asked = rawRequest(`${url}/`).then((answer) => {
        expect(answer.status).toBe(200);
        order.push('GET /');
      });
    });
  };
  subscribe('http.server.request.start', onRequest);
  try {
    const put = await rawRequest(`${url}${path}`, { method: 'PUT', headers: { 'content-type': 'application/yaml' }, body });
    order.push('PUT');
    await asked;
    return { order, put: { status: put.status, body: put.body } };
  } finally {
    unsubscribe('http.server.request.start', onRequest);
  }
}

const tagsOf = (dataplane: string) => Object.keys((JSON.parse(dataplane) as { networking: { inbound: { tags: object }[] } }).networking.inbound[0]!.tags);

describe('a large request body', () => {
  it.each([
    ['a 250 KB YAML Dataplane of 15,000 tags', 'big-yaml', largeYamlDataplane('big-yaml'), 15_001],
    ['a 1 MB JSON Dataplane of 60,000 tags', 'big-json', largeJsonDataplane('big-json'), 60_001],
  ])('(%s) is read while the API answers a request made after it', async (_, name, body, tags) => {
    const core = await startTestCore();
    const path = `/meshes/default/dataplanes/${name}`;
    const { order, put } = await putWhileAsking(core.api.url, path, body);
    expect(put).toEqual({ status: 201, body: '{}' });
    expect(order).toEqual(['GET /', 'PUT']);
    expect(tagsOf((await rawRequest(`${core.api.url}${path}`)).body)).toHaveLength(tags);
  });

  it('refused, is refused with the answer a small body with the same fault gets', async () => {
    const core = await startTestCore();
    const faulty = (text: string) => text.replace('"port":8080', '"port":0').replace('"t0":', '"bad tag!":');
    const put = (name: string, body: string) => rawRequest(`${core.api.url}/meshes/default/dataplanes/${name}`, { method: 'PUT', body });
    const large = await put('faulty', faulty(largeJsonDataplane('faulty')));
    const small = await put('faulty', faulty(largeJsonDataplane('faulty', 'default', 3)));
    expect(large.status).toBe(400);
    expect(JSON.parse(large.body)).toEqual(JSON.parse(small.body));
    expect(JSON.parse(large.body).invalid_parameters.map(({ field }: { field: string }) => field)).toEqual([
      'networking.inbound[0].port',
      'networking.inbound[0].tags["bad tag!"]',
    ]);
  });
});
