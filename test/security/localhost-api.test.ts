import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Route } from '../../src/main/api/router.js';
import { startCore, type Core } from '../../src/main/core.js';
import { parseCoreOptions } from '../../src/main/core-options.js';
import { apiObservableState } from '../support/api-observable-state.js';
import { rawRequest, startTestCore } from '../support/core.js';
import { tempDir } from '../support/temp-dir.js';
import { send } from './http.js';

/**
 * Every route the API serves, read from the running API's own router, so that a route added
 * later is covered here without being listed.
 */
function apiRoutes(core: Core): readonly Route[] {
  return core.api.routes();
}

const SAMPLE_PARAMS: Record<string, string> = { mesh: 'default', name: 'backend-1', id: '1' };

/** A concrete path for a route pattern: `/meshes/:mesh` → `/meshes/default`. */
function samplePath(route: Route): string {
  return route.path.replace(/:([a-z]+)/gi, (_, param: string) => SAMPLE_PARAMS[param] ?? 'x');
}

const SAMPLE_BODY = JSON.stringify({
  type: 'Dataplane',
  mesh: 'default',
  name: 'backend-1',
  networking: { address: '127.0.0.1', inbound: [{ port: 18080, tags: { 'kuma.io/service': 'backend' } }] },
});

/** Requests a browser on a foreign page (or a DNS-rebound one) can make, each with what it must be refused as. */
function forgedHeaders(port: number): { attack: string; headers: Record<string, string>; title: string; writesOnly?: true }[] {
  const own = `127.0.0.1:${port}`;
  return [
    { attack: 'foreign Host', headers: { Host: `evil.example:${port}` }, title: 'Forbidden host' },
    { attack: 'DNS rebinding (attacker name resolving to 127.0.0.1)', headers: { Host: `attacker.example:${port}`, Origin: `http://attacker.example:${port}` }, title: 'Forbidden host' },
    { attack: 'rebinding with a loopback-looking name', headers: { Host: `localhost.evil.example:${port}` }, title: 'Forbidden host' },
    { attack: 'loopback Host with another port', headers: { Host: `localhost:${port + 1}` }, title: 'Forbidden host' },
    { attack: 'Host without port', headers: { Host: 'localhost' }, title: 'Forbidden host' },
    { attack: 'foreign Origin', headers: { Host: own, Origin: 'https://evil.example' }, title: 'Forbidden origin' },
    { attack: 'opaque Origin (sandboxed frame, file://)', headers: { Host: own, Origin: 'null' }, title: 'Forbidden origin' },
    { attack: 'Origin of another local port (a dev server)', headers: { Host: own, Origin: `http://localhost:${port + 1}` }, title: 'Forbidden origin' },
    { attack: 'Origin that only starts like ours', headers: { Host: own, Origin: `http://${own}.evil.example` }, title: 'Forbidden origin' },
    { attack: 'cross-site fetch without Origin', headers: { Host: own, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }, title: 'Forbidden cross-site request' },
    { attack: 'same-site (another port) fetch without Origin', headers: { Host: own, 'Sec-Fetch-Site': 'same-site', 'Sec-Fetch-Mode': 'cors' }, title: 'Forbidden cross-site request' },
    { attack: 'cross-site form post posing as a navigation', headers: { Host: own, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' }, title: 'Forbidden cross-site request', writesOnly: true },
  ];
}

describe('localhost API protection', () => {
  it('refuses forged requests on every state-changing route and on the event stream, and changes nothing', async () => {
    const core = await startTestCore();
    const routes = apiRoutes(core);
    const guarded = routes.filter((route) => route.method !== 'GET' || route.path === '/events');
    // The enumeration is real: writes of every kind are in it.
    expect(guarded.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(['PUT /meshes/:mesh/dataplanes/:name', 'DELETE /meshes/:mesh', 'PUT /settings', 'POST /meshes/:mesh/dataplanes/:name/token', 'GET /events']),
    );
    const before = await apiObservableState(core);

    for (const route of guarded) {
      const url = `${core.api.url}${samplePath(route)}`;
      const body = route.method === 'PUT' ? (route.path === '/settings' ? '{"xds.nackBackoff": "1s"}' : SAMPLE_BODY) : undefined;
      for (const { attack, headers, title, writesOnly } of forgedHeaders(core.api.port)) {
        if (writesOnly && route.method === 'GET') continue; // a navigation to /events shows the stream to the user, not to the page
        const response = await send(url, route.method, headers, body);
        expect({ route: `${route.method} ${route.path}`, attack, status: response.status }).toEqual({
          route: `${route.method} ${route.path}`,
          attack,
          status: 403,
        });
        expect(JSON.parse(response.body)).toMatchObject({ type: '/std-errors', status: response.status, title, detail: expect.any(String) });
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
      }
    }

    expect(await apiObservableState(core)).toEqual(before);
  });

  it('lets the same requests through from its own origin (the guard, not the route, refused them)', async () => {
    const core = await startTestCore();
    const own = `127.0.0.1:${core.api.port}`;
    for (const route of apiRoutes(core).filter((each) => each.method !== 'GET' || each.path === '/events')) {
      const ownRequests: Record<string, string>[] = [
        { Host: own, Origin: `http://${own}`, 'Sec-Fetch-Site': 'same-origin' },
        { Host: `localhost:${core.api.port}` },
      ];
      for (const headers of ownRequests) {
        const body = route.method === 'PUT' ? (route.path === '/settings' ? '{}' : SAMPLE_BODY) : undefined;
        const response = await send(`${core.api.url}${samplePath(route)}`, route.method, headers, body);
        expect({ route: `${route.method} ${route.path}`, status: response.status }).not.toMatchObject({ status: 403 });
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
  });

  it('refuses reads addressed to a foreign Host on every route (DNS rebinding reads nothing)', async () => {
    const core = await startTestCore();
    for (const route of apiRoutes(core).filter((each) => each.method === 'GET')) {
      const response = await send(`${core.api.url}${samplePath(route)}`, 'GET', { Host: `attacker.example:${core.api.port}` });
      expect({ route: route.path, status: response.status }).toEqual({ route: route.path, status: 403 });
    }
  });

  it('still serves a plain navigation from another site (a link to the headless UI), which can change nothing', async () => {
    const core = await startTestCore();
    const response = await rawRequest(`${core.api.url}/`, {
      headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
    });
    expect(response.status).toBe(200);
  });

  it('answers a CORS preflight without allowing any origin', async () => {
    const core = await startTestCore();
    const response = await rawRequest(`${core.api.url}/meshes/default`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'DELETE' },
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-allow-methods']).toBeUndefined();
  });
});

/** TCP sockets in LISTEN state on this port, by local address, from the kernel's table (Linux). */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue;
      const [address, hexPort] = local.split(':') as [string, string];
      if (parseInt(hexPort, 16) === port) found.push(decodeProcAddress(address));
    }
  }
  return found;
}

/** `0100007F` → `127.0.0.1`; IPv6 tables are shown as their hex, which is enough to tell `::` from loopback. */
function decodeProcAddress(hex: string): string {
  if (hex.length !== 8) return /^0+$/.test(hex) ? '::' : hex;
  return [6, 4, 2, 0].map((offset) => parseInt(hex.slice(offset, offset + 2), 16)).join('.');
}

describe.skipIf(!existsSync('/proc/net/tcp'))('listeners', () => {
  async function startWith(env: Record<string, string>, argv: string[] = []): Promise<Core> {
    const options = parseCoreOptions(argv, { MESHDESK_DATA_DIR: tempDir(), MESHDESK_API_PORT: '0', MESHDESK_ADS_PORT: '0', ...env });
    const core = await startCore(options);
    onTestFinished(() => core.close());
    return core;
  }

  it('binds the API and the ADS server to 127.0.0.1 only, by default', async () => {
    const core = await startWith({});
    expect(listeningAddresses(core.api.port)).toEqual(['127.0.0.1']);
    expect(listeningAddresses(core.xds.port)).toEqual(['127.0.0.1']);
  });

  it('binds every interface only when configured to', async () => {
    const core = await startWith({}, ['--host', '0.0.0.0']);
    expect(listeningAddresses(core.api.port)).toEqual(['0.0.0.0']);
    expect(listeningAddresses(core.xds.port)).toEqual(['0.0.0.0']);
  });
});
