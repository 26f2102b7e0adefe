import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { appFilePath, appProtocolHandler } from './app-protocol.js';
import { APP_CONTENT_SECURITY_POLICY } from './content-security-policy.js';

function rendererDir(): string {
  const dir = join(tempDir(), 'renderer');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>meshdesk</title>');
  writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log("meshdesk")');
  writeFileSync(join(dir, '..', 'secret.txt'), 'not for the renderer');
  return dir;
}

describe('the meshdesk:// protocol', () => {
  it('serves the built renderer with the CSP and the right content types', async () => {
    const handler = appProtocolHandler(rendererDir());
    const page = await handler(new Request('meshdesk://app/index.html'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(APP_CONTENT_SECURITY_POLICY);
    expect(await page.text()).toContain('<title>meshdesk</title>');
    const script = await handler(new Request('meshdesk://app/assets/index-abc.js'));
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await handler(new Request('meshdesk://app/'))).status).toBe(200);
  });

  it('answers 404 for missing files, other hosts and paths that would leave the folder', async () => {
    const dir = rendererDir();
    const handler = appProtocolHandler(dir);
    for (const url of ['meshdesk://app/missing.js', 'meshdesk://other/index.html', 'meshdesk://app/..%2fsecret.txt', 'meshdesk://app/%2e%2e/secret.txt', 'meshdesk://app/assets']) {
      expect((await handler(new Request(url))).status, url).toBe(404);
    }
    expect(appFilePath(dir, 'meshdesk://app/..%2f..%2fetc%2fpasswd')).toBeUndefined();
    expect(appFilePath(dir, 'meshdesk://app/%E0%A4%A')).toBeUndefined();
  });
});
