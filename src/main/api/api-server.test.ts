import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestCore } from '../../../test/support/core.js';

const dataplane = JSON.stringify({
  type: 'Dataplane',
  mesh: 'default',
  name: 'backend-1',
  networking: { address: '127.0.0.1', inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend' } }] },
});

describe('the API without TCP (core.api.request)', () => {
  it('routes through the same router as HTTP and sees the same data', async () => {
    const core = await startTestCore();
    const created = await core.api.request({ method: 'PUT', path: '/meshes/default/dataplanes/backend-1', body: dataplane });
    expect(created).toMatchObject({ status: 201, contentType: 'application/json' });
    const overHttp = await (await fetch(`${core.api.url}/meshes/default/dataplanes?size=10`)).text();
    const inProcess = await core.api.request({ method: 'GET', path: '/meshes/default/dataplanes?size=10' });
    expect(inProcess).toEqual({ status: 200, contentType: 'application/json', body: overHttp });
  });

  it('answers errors as the same JSON bodies, with their status', async () => {
    const core = await startTestCore();
    const invalid = await core.api.request({ method: 'PUT', path: '/meshes/default/dataplanes/other-name', body: dataplane });
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body).causes).toContainEqual(expect.objectContaining({ field: 'name' }));
    expect((await core.api.request({ method: 'DELETE', path: '/meshes' })).status).toBe(405);
    expect((await core.api.request({ method: 'GET', path: '/nothing-here' })).status).toBe(404);
  });

  it('refuses a body over the limit, as HTTP does', async () => {
    const core = await startTestCore();
    const answer = await core.api.request({ method: 'PUT', path: '/settings', body: ' '.repeat(1024 * 1024 + 1) });
    expect(answer.status).toBe(413);
  });

  it('carries non-JSON answers with their content type', async () => {
    const core = await startTestCore();
    const metrics = await core.api.request({ method: 'GET', path: '/metrics' });
    expect(metrics.status).toBe(200);
    expect(metrics.contentType).toContain('text/plain');
    expect(metrics.body).toContain('# HELP');
  });

  it('refuses routes that only HTTP can carry, naming the alternative', async () => {
    const core = await startTestCore();
    const events = await core.api.request({ method: 'GET', path: '/events' });
    expect(events.status).toBe(404);
    expect(JSON.parse(events.body).details).toMatch(/HTTP only.*window\.meshdesk\.subscribe/);
  });
});

/** Writes `raw` on a fresh TCP connection and resolves with everything the server sent back. */
async function sendRaw(url: string, raw: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  await once(socket, 'connect');
  socket.write(raw);
  await once(socket, 'close');
  return received;
}

describe('requests the HTTP parser refuses', () => {
  it('get the JSON error shape, naming the problem, and the connection is closed', async () => {
    const core = await startTestCore();

    const malformed = await sendRaw(core.api.url, 'GET /meshes HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n');
    const [head, body] = malformed.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toContain('content-type: application/json');
    expect(JSON.parse(body!)).toEqual({
      type: '/std-errors',
      status: 400,
      title: 'Could not parse the HTTP request',
      detail: expect.stringMatching(/header.*\(HPE_/i),
      details: expect.stringMatching(/header.*\(HPE_/i),
    });

    const oversized = await sendRaw(core.api.url, `GET /meshes HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(oversized).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  });
});

describe('a request without a Host header', () => {
  it.each(['1.1', '1.0'])('gets the JSON error saying the Host header is required (HTTP/%s)', async (version) => {
    const core = await startTestCore();
    const answer = await sendRaw(core.api.url, `GET /meshes HTTP/${version}\r\nConnection: close\r\n\r\n`);
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toContain('content-type: application/json');
    const detail = `the request has no Host header: meshdesk only answers requests addressed to localhost:${core.api.port}, 127.0.0.1:${core.api.port}, [::1]:${core.api.port}`;
    expect(JSON.parse(body!)).toEqual({ type: '/std-errors', status: 400, title: 'Host header required', detail, details: detail });
  });
});

describe('closing the API server', () => {
  it('answers a write that is in flight, and takes no new connection', async () => {
    const core = await startTestCore();
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const put = request(`${core.api.url}/meshes/default/dataplanes/backend-1`, { method: 'PUT', headers: { 'content-length': Buffer.byteLength(dataplane) } }, (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      put.on('error', reject);
      put.write(dataplane.slice(0, 20));
      // Its headers are in: the server is closed while the body is still on its way.
      put.on('socket', (socket) =>
        socket.once('connect', () =>
          setImmediate(() => {
            void core.api.close();
            put.end(dataplane.slice(20));
          }),
        ),
      );
    });

    expect((await answered).status).toBe(201);
    expect((await core.manager.get('Dataplane', { mesh: 'default', name: 'backend-1' })).meta.version).toBe(1);
    await expect(fetch(`${core.api.url}/meshes`)).rejects.toThrow();
  });
});

