import { Agent, request } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { rawRequest, startTestCore } from '../../../test/support/core.js';
import { WEB_1_OUTBOUND_YAML } from '../../../test/support/dataplanes.js';

const backend = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'backend-1',
  networking: {
    address: '127.0.0.1',
    inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend' } }],
  },
};

/** The JSON body of a GET; loosely typed because each test states the shape it expects. */
async function getJson(url: string): Promise<Record<string, any>> {
  return (await fetch(url)).json() as Promise<Record<string, any>>;
}

async function put(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'PUT', body: typeof body === 'string' ? body : JSON.stringify(body), headers });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** A request on `agent`'s connections (fetch pools its own). */
function requestOn(agent: Agent, url: string, method = 'GET', body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { agent, method }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('HTTP API', () => {
  it('serves the default mesh from the first start', async () => {
    const core = await startTestCore();
    const meshes = await getJson(`${core.api.url}/meshes`);
    expect(meshes).toMatchObject({ total: 1, items: [{ type: 'Mesh', name: 'default' }] });
  });

  it('applies a Dataplane, reads it back and lists it', async () => {
    const core = await startTestCore();
    const created = await put(`${core.api.url}/meshes/default/dataplanes/backend-1`, backend);
    expect(created.status).toBe(201);
    // Kuma's answer to a create: `{}`; the stored resource is read back.
    expect(created.body).toEqual({});
    const read = await getJson(`${core.api.url}/meshes/default/dataplanes/backend-1`);
    expect(read).toMatchObject({ ...backend, version: 1 });
    expect(read.creationTime).toEqual(expect.any(String));
    const list = await getJson(`${core.api.url}/meshes/default/dataplanes`);
    expect(list).toMatchObject({ total: 1, items: [{ name: 'backend-1' }] });
  });

  it('accepts YAML bodies as kumactl users write them', async () => {
    const core = await startTestCore();
    expect((await put(`${core.api.url}/meshes/default/dataplanes/web-1`, WEB_1_OUTBOUND_YAML)).status).toBe(201);
  });

  describe('rejects an invalid Dataplane with every violation by field, and writes nothing', () => {
    const cases: [string, unknown, string, { field: string; message?: RegExp }[]][] = [
      [
        'tags without kuma.io/service',
        { ...backend, networking: { ...backend.networking, inbound: [{ port: 18080, tags: { version: 'v1' } }] } },
        'backend-1',
        [{ field: 'networking.inbound[0].tags["kuma.io/service"]', message: /tag has to exist/ }],
      ],
      [
        'bad port',
        { ...backend, networking: { ...backend.networking, inbound: [{ port: 70000, tags: { 'kuma.io/service': 'b' } }] } },
        'backend-1',
        [{ field: 'networking.inbound[0].port' }],
      ],
      ['name mismatch with the URL', backend, 'other-name', [{ field: 'name' }]],
      ['malformed YAML', 'type: Dataplane\nnetworking: [unclosed', 'backend-1', []],
    ];
    for (const [title, body, name, expected] of cases) {
      it(title, async () => {
        const core = await startTestCore();
        const response = await put(`${core.api.url}/meshes/default/dataplanes/${name}`, body);
        expect(response.status).toBe(400);
        expect(response.body.title).toEqual(expect.any(String));
        expect(response.body.causes.length).toBeGreaterThan(0);
        for (const violation of expected) {
          expect(response.body.causes).toContainEqual(
            expect.objectContaining({ field: violation.field, ...(violation.message && { message: expect.stringMatching(violation.message) }) }),
          );
        }
        expect(await getJson(`${core.api.url}/meshes/default/dataplanes`)).toMatchObject({ total: 0 });
      });
    }

    it('a mesh mismatch with the URL', async () => {
      const core = await startTestCore();
      await put(`${core.api.url}/meshes/other`, { type: 'Mesh', name: 'other' });
      const response = await put(`${core.api.url}/meshes/other/dataplanes/backend-1`, backend);
      expect(response.status).toBe(400);
      expect(response.body.causes).toContainEqual(expect.objectContaining({ field: 'mesh' }));
    });
  });

  it('lets exactly one of two concurrent updates with the same version win; the other gets 409', async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/default/dataplanes/backend-1`;
    await put(url, backend);
    const [a, b] = await Promise.all([
      put(url, { ...backend, version: 1, labels: { writer: 'a' } }),
      put(url, { ...backend, version: 1, labels: { writer: 'b' } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? 'a' : 'b';
    expect(await getJson(url)).toMatchObject({ version: 2, labels: { writer: winner } });
  });

  it('upserts without a version for 100 concurrent writers: all succeed, the last write stays (issue 12: 65–91 % got 409)', async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/default/dataplanes/backend-1`;
    // 100 connections open first, so that the 100 PUTs reach the server together, as a burst does.
    const agent = new Agent({ keepAlive: true, maxSockets: 100 });
    onTestFinished(() => agent.destroy());
    await Promise.all(Array.from({ length: 100 }, () => requestOn(agent, `${core.api.url}/meshes`)));
    const versions: number[] = [];
    onTestFinished(core.events.subscribe((event) => event.topic === 'resource.changed' && event.key.name === 'backend-1' && versions.push(event.version)));
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, writer) => requestOn(agent, url, 'PUT', JSON.stringify({ ...backend, labels: { writer: String(writer) } }))),
    );

    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 201)).toEqual([]);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    // A PUT answers `{}` as Kuma's does, so the writes show in their announcements: each one applied, in turn.
    expect(versions).toEqual(Array.from({ length: 100 }, (_, index) => index + 1));
    const stored = await getJson(url);
    expect(stored).toMatchObject({ version: 100 });
    expect(Number(stored.labels.writer)).toBeGreaterThanOrEqual(0);
    expect(Number(stored.labels.writer)).toBeLessThan(100);
  });

  it('says in a 409 the version the client sent, and only that', async () => {
    const core = await startTestCore();
    const url = `${core.api.url}/meshes/default/dataplanes/backend-1`;
    await put(url, backend);
    await put(url, backend);
    const refused = await put(url, { ...backend, version: 1 });
    expect(refused).toMatchObject({ status: 409, body: { details: expect.stringContaining('you sent version 1, the stored version is 2') } });
  });

  it('refuses to delete a mesh that still has dataplanes, and deletes it once they are gone', async () => {
    const core = await startTestCore();
    await put(`${core.api.url}/meshes/demo`, { type: 'Mesh', name: 'demo' });
    await put(`${core.api.url}/meshes/demo/dataplanes/backend-1`, { ...backend, mesh: 'demo' });
    const refused = await fetch(`${core.api.url}/meshes/demo`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { details: string }).details).toContain('backend-1');
    expect((await fetch(`${core.api.url}/meshes/demo/dataplanes/backend-1`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${core.api.url}/meshes/demo`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${core.api.url}/meshes/demo`)).status).toBe(404);
  });

  it('answers unknown paths and methods with JSON errors', async () => {
    const core = await startTestCore();
    const missing = await fetch(`${core.api.url}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ title: 'Not found' });
    const wrongMethod = await fetch(`${core.api.url}/meshes`, { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
  });

  it('reads and changes settings partially, and rejects a bad one by name', async () => {
    const core = await startTestCore();
    const before = await getJson(`${core.api.url}/settings`);
    expect(before['store.cache.expirationTime']).toBe('1s');
    const changed = await put(`${core.api.url}/settings`, { 'store.cache.expirationTime': '2s' });
    expect(changed.status).toBe(200);
    expect(changed.body['store.cache.expirationTime']).toBe('2s');
    expect(core.settings.get('store.cache.expirationTime')).toBe(2000);

    const rejected = await put(`${core.api.url}/settings`, {
      'store.cache.expirationTime': 'soon',
      'xds.postCreateStrategy': 'sleep',
    });
    expect(rejected.status).toBe(400);
    expect(rejected.body.causes).toContainEqual(expect.objectContaining({ field: 'store.cache.expirationTime' }));
    expect(core.settings.get('store.cache.expirationTime')).toBe(2000);
  });

  it('refuses an ADS port equal to the API port, naming both settings, and saves nothing', async () => {
    const core = await startTestCore();
    const rejected = await put(`${core.api.url}/settings`, { 'xds.port': 5681 });
    expect(rejected.status).toBe(400);
    expect(rejected.body.causes).toEqual([
      { field: 'xds.port', message: 'xds.port (given here) and apiServer.port (default) are both 5681: the ADS server and the HTTP API need a port each' },
    ]);
    expect((await getJson(`${core.api.url}/settings`))['xds.port']).toBe(0);
  });

  it('exposes store_cache counters on /metrics in Prometheus text format', async () => {
    const core = await startTestCore();
    await core.cachedManager.get('Mesh', { mesh: '', name: 'default' });
    const response = await fetch(`${core.api.url}/metrics`);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(await response.text()).toMatch(/store_cache\{operation="get",resource_type="Mesh",result="miss"\} 1/);
  });

  it('streams resource changes as server-sent events', async () => {
    const core = await startTestCore();
    const controller = new AbortController();
    const events = await fetch(`${core.api.url}/events`, { signal: controller.signal });
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = events.body!.getReader();
    await put(`${core.api.url}/meshes/default/dataplanes/backend-1`, backend);
    let text = '';
    while (!text.includes('event: resource.changed')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('"name":"backend-1"');
    controller.abort();
  });

  it('answers a HEAD of the event stream with its headers, and ends it', async () => {
    const core = await startTestCore();
    const response = await rawRequest(`${core.api.url}/events`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream');
  });

  it('ends the event streams on close and writes no event to them after', async () => {
    const core = await startTestCore();
    const events = await fetch(`${core.api.url}/events`);
    const reader = events.body!.getReader();
    await reader.read(); // the stream's opening comment: it is subscribed

    const closed = core.api.close();
    // A shutdown publishes events (streams closing, Dataplanes deregistered) right after the API closed.
    core.events.publish({ topic: 'resource.changed', change: 'created', key: { type: 'Dataplane', mesh: 'default', name: 'after-close' }, version: 1 });
    let text = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    await closed;

    expect(text).not.toContain('after-close');
  });

  describe('localhost protection', () => {
    it('refuses a request addressed to a foreign Host (DNS rebinding)', async () => {
      const core = await startTestCore();
      const response = await rawRequest(`${core.api.url}/meshes`, { headers: { Host: 'evil.example:5681' } });
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body).details).toContain('evil.example');
    });

    it('refuses a state-changing request from a foreign Origin and writes nothing', async () => {
      const core = await startTestCore();
      const response = await rawRequest(`${core.api.url}/meshes/default/dataplanes/backend-1`, {
        method: 'PUT',
        headers: { Origin: 'http://evil.example' },
        body: JSON.stringify(backend),
      });
      expect(response.status).toBe(403);
      expect((await fetch(`${core.api.url}/meshes/default/dataplanes/backend-1`)).status).toBe(404);
    });

    it('accepts a request from its own origin', async () => {
      const core = await startTestCore();
      const response = await rawRequest(`${core.api.url}/settings`, {
        method: 'PUT',
        headers: { Origin: `http://127.0.0.1:${core.api.port}` },
        body: JSON.stringify({ 'xds.postCreateStrategy': 'none' }),
      });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
