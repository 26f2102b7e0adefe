import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRequest, startTestCore } from '../../../test/support/core.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { startApiServer, type RunningApiServer } from './api-server.js';
import { Router } from './router.js';
import { GUI_CONTENT_SECURITY_POLICY, staticFileRoutes } from './static-files.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A built renderer's shape: index.html, hashed assets, and a secret next to the folder. */
function fakeBuild(): string {
  const parent = tempDir();
  const dir = join(parent, 'renderer');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="./assets/index-abc.js"></script>');
  writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log("ui")');
  writeFileSync(join(dir, 'assets', 'index-abc.css'), 'body{}');
  writeFileSync(join(dir, 'favicon.svg'), '<svg/>');
  writeFileSync(join(parent, 'secret.txt'), 'do not serve');
  return dir;
}

async function serve(rendererDir: string): Promise<RunningApiServer> {
  const router = new Router(staticFileRoutes(rendererDir));
  const server = await startApiServer({ host: '127.0.0.1', port: 0, router });
  cleanups.push(() => server.close());
  return server;
}

describe('static files under /gui', () => {
  it('serves index.html at /gui/ with a strict CSP and no caching, and redirects /gui to /gui/', async () => {
    const server = await serve(fakeBuild());
    const index = await rawRequest(`${server.url}/gui/`);
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['content-security-policy']).toBe(GUI_CONTENT_SECURITY_POLICY);
    expect(GUI_CONTENT_SECURITY_POLICY).toMatch(/default-src 'self'/);
    expect(GUI_CONTENT_SECURITY_POLICY).toMatch(/script-src 'self'(;|$)/);
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.body).toContain('index-abc.js');

    const bare = await rawRequest(`${server.url}/gui`);
    expect(bare.status).toBe(302);
    expect(bare.headers.location).toBe('/gui/');
  });

  it('serves hashed assets with their content type, cached for good', async () => {
    const server = await serve(fakeBuild());
    const script = await rawRequest(`${server.url}/gui/assets/index-abc.js`);
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect((await rawRequest(`${server.url}/gui/assets/index-abc.css`)).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await rawRequest(`${server.url}/gui/favicon.svg`)).headers['content-type']).toBe('image/svg+xml');
  });

  it('refuses paths that leave the folder, however they are encoded', async () => {
    const server = await serve(fakeBuild());
    for (const path of ['/gui/../secret.txt', '/gui/%2e%2e/secret.txt', '/gui/..%2fsecret.txt', '/gui/assets/..%2f..%2fsecret.txt', '/gui/%2e%2e%2fsecret.txt']) {
      const response = await rawRequest(`${server.url}${path}`);
      expect(response.body, path).not.toContain('do not serve');
      expect(response.status, path).toBe(404);
    }
  });

  it('answers 404 for a missing file and for a folder', async () => {
    const server = await serve(fakeBuild());
    expect((await rawRequest(`${server.url}/gui/nope.js`)).status).toBe(404);
    expect((await rawRequest(`${server.url}/gui/assets`)).status).toBe(404);
  });

  it('says how to build the UI when it is not built', async () => {
    const server = await serve(join(tempDir(), 'missing'));
    const response = await rawRequest(`${server.url}/gui/`);
    expect(response.status).toBe(503);
    expect(response.body).toContain('npm run build:renderer');
  });

  it('sends a browser asking for / to the UI and an API client to the JSON index', async () => {
    const { api: server } = await startTestCore();
    const browser = await rawRequest(`${server.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe('/gui/');
    const api = await rawRequest(`${server.url}/`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(200);
    expect(JSON.parse(api.body)).toMatchObject({ product: 'Kuma', meshdesk: { version: expect.any(String) } });
  });
});
