import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, resolve, sep } from 'node:path';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { ApiError } from './api-error.js';
import type { Handler, RequestContext, Route } from './router.js';

/** Where the UI is served, as Kuma serves its GUI. */
export const GUI_PATH = '/gui';

/**
 * The page's own policy: scripts and connections from this origin only, no inline script.
 * Inline styles stay allowed: Svelte transitions, CodeMirror and Chart.js set them at run time.
 */
export const GUI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** The router matches whole segments, so each depth under /gui is a route; Vite's output is two deep (`assets/x.js`). */
const MAX_DEPTH = 4;

/**
 * The built renderer (`out/renderer`, made by `npm run build:renderer` or `electron-vite build`).
 * `MESHDESK_RENDERER_DIR` overrides it; otherwise it is found next to this file whether it runs
 * from the sources (`src/main/api`, under tsx) or from electron-vite's bundle (`out/main`).
 */
export function defaultRendererDir(): string {
  const fromEnv = process.env.MESHDESK_RENDERER_DIR;
  if (fromEnv) return resolve(fromEnv);
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, '../../../out/renderer'), resolve(here, '../renderer')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? candidates[0]!;
}

/**
 * `GET /gui/…`: the UI's files. Hashed assets (`/gui/assets/…`) are cached for a year, everything
 * else (index.html) is revalidated every time so a rebuilt UI shows at once. Paths are resolved
 * inside the folder and anything that would leave it is a 404, as is a path to a folder.
 * Without a build, `/gui/` says how to make one.
 */
export function staticFileRoutes(rendererDir: string = defaultRendererDir()): Route[] {
  const root = resolve(rendererDir);
  const handler: Handler = (context) => serveFile(root, context);
  const routes: Route[] = [
    {
      method: 'GET',
      path: GUI_PATH,
      handler: (context) => (context.request.url?.split('?')[0]?.endsWith('/') ? handler(context) : redirect(context.response, `${GUI_PATH}/`)),
    },
  ];
  for (let depth = 1; depth <= MAX_DEPTH; depth++) {
    const segments = Array.from({ length: depth }, (_, index) => `:p${index}`);
    routes.push({ method: 'GET', path: `${GUI_PATH}/${segments.join('/')}`, handler });
  }
  return routes;
}

/** A browser asking for `/` wants the UI; API clients asking for `/` get the JSON index. */
export function wantsHtml(context: RequestContext): boolean {
  return context.request.headers.accept?.includes('text/html') ?? false;
}

export function redirect(response: ServerResponse, location: string): undefined {
  response.writeHead(302, { location, 'content-length': 0, 'cache-control': 'no-store' });
  response.end();
  return undefined;
}

function serveFile(root: string, { request, response, params }: RequestContext): undefined {
  const url = new URL(request.url ?? '/', 'http://localhost');
  // `/gui/` (an empty last segment) is the index; the router drops empty segments.
  const relative = url.pathname.endsWith('/') ? join(...Object.values(params), 'index.html') : join(...Object.values(params));
  if (!existsSync(join(root, 'index.html'))) {
    if (relative === 'index.html') return sendMissingBuild(response, root);
    throw notFound(url.pathname);
  }
  const file = resolve(root, relative);
  if (!file.startsWith(root + sep) || !isFile(file)) throw notFound(url.pathname);

  const body = readFileSync(file);
  const extension = extname(file).toLowerCase();
  const headers: Record<string, string | number> = {
    'content-type': CONTENT_TYPES[extension] ?? 'application/octet-stream',
    'content-length': body.length,
    'x-content-type-options': 'nosniff',
    'cache-control': relative.startsWith(`assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
  if (extension === '.html') {
    headers['content-security-policy'] = GUI_CONTENT_SECURITY_POLICY;
    headers['x-frame-options'] = 'DENY';
    headers['referrer-policy'] = 'no-referrer';
  }
  response.writeHead(200, headers);
  response.end(request.method === 'HEAD' ? undefined : body);
  return undefined;
}

function sendMissingBuild(response: ServerResponse, root: string): undefined {
  const body =
    `meshdesk's UI is not built: ${join(root, 'index.html')} does not exist.\n\n` +
    'Build it with `npm run build:renderer` (or `npm run build` for the whole app), then reload this page.\n' +
    '`npm run headless` builds it before starting. The HTTP API works without it.\n';
  response.writeHead(503, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(body);
  return undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function notFound(pathname: string): ApiError {
  return new ApiError(404, 'Not found', `no UI file at ${pathname}`);
}
