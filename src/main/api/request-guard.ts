import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Sec-Fetch-Site values of requests a page of ours (or the user, typing a URL) made. */
const OWN_SITES = new Set(['same-origin', 'none']);

/**
 * Protects a loopback API from the browser (SPEC §9): a page on another site can make the
 * browser send requests here, and DNS rebinding can make such a page look same-origin.
 * - The Host header must name a loopback host with our port (defeats rebinding).
 * - A request carrying an Origin must come from our own origin, whatever its method or path
 *   (defeats CSRF and cross-origin reads of the event stream; checking every request spares
 *   us from matching paths the way the router does).
 * - Fetch metadata (Sec-Fetch-Site), for browsers that send it without an Origin: a request
 *   from another site, even a same-site one such as another port of localhost, is refused unless
 *   it is a plain navigation (a link to the headless UI), which cannot change anything.
 */
export function checkRequestOrigin(request: IncomingMessage, port: number): void {
  const allowedHosts = LOOPBACK_NAMES.map((name) => `${name}:${port}`);
  const host = request.headers.host?.toLowerCase();
  if (!host) {
    throw new ApiError(
      400,
      'Host header required',
      `the request has no Host header: meshdesk only answers requests addressed to ${allowedHosts.join(', ')}`,
    );
  }
  if (!allowedHosts.includes(host)) {
    throw new ApiError(
      403,
      'Forbidden host',
      `Host "${host}" is not allowed: meshdesk only answers requests addressed to ${allowedHosts.join(', ')}`,
    );
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !allowedHosts.some((allowed) => origin.toLowerCase() === `http://${allowed}`)) {
    throw new ApiError(403, 'Forbidden origin', `Origin "${origin}" is not allowed to use the meshdesk API`);
  }
  const site = header(request, 'sec-fetch-site')?.toLowerCase();
  if (site === undefined || OWN_SITES.has(site)) return;
  const navigation = header(request, 'sec-fetch-mode')?.toLowerCase() === 'navigate' && SAFE_METHODS.has(request.method ?? 'GET');
  if (!navigation) {
    throw new ApiError(
      403,
      'Forbidden cross-site request',
      `a ${site} ${request.method ?? 'GET'} request (Sec-Fetch-Site: ${site}) is not allowed to use the meshdesk API; only its own pages may`,
    );
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
