import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-error.js';

export interface RequestContext {
  request: IncomingMessage;
  response: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The request body as text; refuses bodies over the limit. */
  body(): Promise<string>;
}

/** What a handler answers; `undefined` means the handler wrote the response itself (event stream). */
export type Reply = { status?: number; json: unknown } | { status?: number; text: string; contentType: string } | undefined;

export type Handler = (context: RequestContext) => Promise<Reply> | Reply;

export interface Route {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** Segments starting with ':' are parameters, e.g. `/meshes/:mesh`. */
  path: string;
  handler: Handler;
}

export interface RouteMatch {
  handler: Handler;
  params: Record<string, string>;
}

export class Router {
  readonly #routes: { route: Route; segments: string[] }[];

  constructor(routes: Route[]) {
    this.#routes = routes.map((route) => ({ route, segments: route.path.split('/').filter(Boolean) }));
  }

  /** Every route, in matching order: tests walk them so that a new route is covered without being listed. */
  routes(): Route[] {
    return this.#routes.map(({ route }) => route);
  }

  /** Throws 404 for an unknown path and 405 (naming the allowed methods) for a known path with another method. */
  match(method: string, pathname: string): RouteMatch {
    const segments = pathname.split('/').filter(Boolean).map(decodeSegment);
    const allowed: string[] = [];
    for (const { route, segments: pattern } of this.#routes) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) {
        return { handler: route.handler, params };
      }
      allowed.push(route.method);
    }
    if (allowed.length > 0) {
      throw new ApiError(405, 'Method not allowed', `${method} ${pathname} is not supported; use ${allowed.join(', ')}`);
    }
    throw new ApiError(404, 'Not found', `no API endpoint at ${pathname}`);
  }
}

/**
 * The URL of a request target (`/meshes?x=1`). Only origin-form targets are served: read against a
 * base, `//x` would be a host, not a path, and `//` no URL at all. Only canonical paths are served
 * (see `nonCanonicalPart`).
 */
export function parseRequestTarget(target: string): URL {
  if (!target.startsWith('/')) throw new ApiError(400, 'Bad request', `request target "${target}" is not a path`);
  const path = target.split(/[?#]/, 1)[0]!;
  const problem = nonCanonicalPart(path);
  if (problem) throw new ApiError(400, 'Bad request', `path "${path}" is not canonical: it has ${problem}; write the path without it`);
  try {
    return new URL(`http://localhost${target}`);
  } catch {
    throw new ApiError(400, 'Bad request', `request target "${target}" is not a valid URL path`);
  }
}

/**
 * What makes `path` other than the one path it names, if anything. The URL parser resolves `.` and
 * `..` segments (percent-encoded dots too) and reads `\` as `/`, so `DELETE /meshes/zz/dataplanes/..`
 * would delete the mesh `zz`; the router drops empty segments, so `//` would shift every parameter
 * after it. One trailing `/` is allowed (`/gui/`).
 */
function nonCanonicalPart(path: string): string | undefined {
  const segments = path.split('/').slice(1);
  for (const [index, segment] of segments.entries()) {
    if (segment === '' && index < segments.length - 1) return 'an empty segment ("//")';
    if (segment.includes('\\')) return 'a backslash';
    if (/[\x00-\x20\x7f]/.test(segment)) return 'a space or control character';
    const dots = segment.replace(/%2e/gi, '.');
    if (dots === '.' || dots === '..') return `a "${segment}" segment`;
  }
  return undefined;
}

function matchSegments(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  // No prototype: a parameter named like one of Object's properties reads as absent, not inherited.
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index]!;
    if (part.startsWith(':')) params[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError(400, 'Bad request', `path segment "${segment}" is not valid percent-encoding`);
  }
}
