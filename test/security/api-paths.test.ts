import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';
import { putResource } from '../support/put-resource.js';

/** Sends `path` exactly as written: fetch and `request(url)` resolve `.` and `..` before sending. */
function sendPath(core: Core, method: string, path: string): Promise<{ status: number; body: { details?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: core.api.port, method, path }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { details?: string } }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function names(core: Core, query: string): Promise<{ status: number; names: string[] }> {
  const response = await fetch(`${core.api.url}/meshes/default/dataplanes?${query}`);
  const body = (await response.json()) as { items?: { name: string }[] };
  return { status: response.status, names: (body.items ?? []).map((item) => item.name) };
}

describe('API paths are served only as written', () => {
  let core: Core;
  beforeAll(async () => {
    core = await startTestCore();
    // An empty mesh: deleting it would succeed, so only the refusal keeps it.
    await putResource(core.api.url, '/meshes/zz', { type: 'Mesh', name: 'zz' });
  });

  const nonCanonical = [
    ['/meshes/zz/dataplanes/..', 'a ".." segment'],
    ['/meshes/zz/dataplanes/%2e%2E', 'a "%2e%2E" segment'],
    ['/meshes/zz/dataplanes/.%2e', 'a ".%2e" segment'],
    ['/meshes/zz/dataplanes/x/../..', 'a ".." segment'],
    ['/meshes/zz/.', 'a "." segment'],
    ['/meshes/zz/%2E/', 'a "%2E" segment'],
    ['/meshes//zz', 'an empty segment ("//")'],
    ['/meshes/zz/dataplanes\\..', 'a backslash'],
  ] as const;
  for (const [path, problem] of nonCanonical) {
    it(`refuses DELETE ${path} with 400 naming it, and deletes nothing`, async () => {
      const { status, body } = await sendPath(core, 'DELETE', path);
      expect(status).toBe(400);
      expect(body.details).toBe(`path "${path}" is not canonical: it has ${problem}; write the path without it`);
      expect((await fetch(`${core.api.url}/meshes/zz`)).status).toBe(200);
    });
  }

  it('still serves canonical paths, with one trailing slash', async () => {
    expect((await sendPath(core, 'GET', '/meshes/zz')).status).toBe(200);
    expect((await sendPath(core, 'GET', '/meshes/zz/')).status).toBe(200);
    expect((await sendPath(core, 'GET', '/meshes/zz/dataplanes?name=..')).status).toBe(200);
  });
});

describe('list query values never reach inherited properties', () => {
  let core: Core;
  beforeAll(async () => {
    core = await startTestCore();
    await applyDataplane(core, backendDataplane('built-1', 18080, 'built', 'default', { constructor: 'xyz' }));
    await applyDataplane(core, backendDataplane('plain-1', 18081, 'plain'));
  });

  it('filters by a tag named like an Object property as by any tag', async () => {
    expect(await names(core, 'tag=constructor:x')).toEqual({ status: 200, names: ['built-1'] });
    expect(await names(core, 'tag=constructor:other')).toEqual({ status: 200, names: [] });
    expect(await names(core, 'tag=__proto__:x')).toEqual({ status: 200, names: [] });
    expect(await names(core, 'tag=toString')).toEqual({ status: 200, names: [] });
    expect(await names(core, 'tag=kuma.io/service:plain')).toEqual({ status: 200, names: ['plain-1'] });
  });

  it('filters by a label named like an Object property as by any label', async () => {
    expect(await names(core, 'filter[labels.constructor]=x')).toEqual({ status: 200, names: [] });
    expect(await names(core, 'filter[labels.__proto__]=')).toEqual({ status: 200, names: [] });
    expect(await names(core, 'filter[labels.kuma.io/zone]=default')).toEqual({ status: 200, names: ['built-1', 'plain-1'] });

    // Raw JSON: an object literal's `__proto__` would set the prototype instead of a label.
    const put = await fetch(`${core.api.url}/meshes/labelled`, { method: 'PUT', body: '{"type":"Mesh","name":"labelled","labels":{"__proto__":"x","constructor":"y"}}' });
    expect(put.status).toBe(201);
    const meshes = async (query: string) => ((await (await fetch(`${core.api.url}/meshes?${query}`)).json()) as { items: { name: string }[] }).items.map((item) => item.name);
    expect(await meshes('filter[labels.__proto__]=x')).toEqual(['labelled']);
    expect(await meshes('filter[labels.constructor]=y')).toEqual(['labelled']);
    expect(await meshes('filter[labels.toString]=')).toEqual([]);
  });
});
