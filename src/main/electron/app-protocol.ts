import type { CustomScheme } from './electron-types.js';
import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { APP_HOST, APP_SCHEME } from './app-origin.js';
import { APP_CONTENT_SECURITY_POLICY } from './content-security-policy.js';

/**
 * `meshdesk://` behaves like https for the pages it serves (a secure, standard origin, so ES
 * modules, relative URLs and `'self'` work). Must be registered before the app is ready.
 */
export const APP_SCHEME_PRIVILEGES: CustomScheme = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true },
};

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The file of the built renderer a `meshdesk://app/…` URL names, or undefined for anything outside it. */
export function appFilePath(rendererDir: string, url: string): string | undefined {
  const parsed = new URL(url);
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return undefined;
  let pathname: string;
  try {
    pathname = decodeURIComponent(parsed.pathname);
  } catch {
    return undefined;
  }
  const root = resolve(rendererDir);
  const file = resolve(root, `.${pathname === '/' ? '/index.html' : pathname}`);
  return file.startsWith(root + sep) ? file : undefined;
}

/**
 * The handler for `protocol.handle(APP_SCHEME, …)`: the built renderer's files, each with the app's
 * CSP, and 404 for anything else (including paths that would leave the folder).
 */
export function appProtocolHandler(rendererDir: string) {
  return async (request: Request): Promise<Response> => {
    const file = appFilePath(rendererDir, request.url);
    const body = file === undefined ? undefined : await readFile(file).catch(() => undefined);
    if (file === undefined || body === undefined) {
      return new Response(`not found: ${request.url}`, { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
    return new Response(new Uint8Array(body), {
      headers: {
        'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
        'content-security-policy': APP_CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
      },
    });
  };
}
