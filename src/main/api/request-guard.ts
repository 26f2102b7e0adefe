import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Protects a loopback API from the browser (SPEC §9): a page on another site can make the
 * browser send requests here, and DNS rebinding can make such a page look same-origin.
 * The Host header must name a loopback host with our port (defeats rebinding), and a
 * state-changing request that carries an Origin must come from our own origin (defeats CSRF).
 */
export function checkRequestOrigin(request: IncomingMessage, port: number): void {
  const allowedHosts = LOOPBACK_NAMES.map((name) => `${name}:${port}`);
  const host = request.headers.host?.toLowerCase();
  if (!host || !allowedHosts.includes(host)) {
    throw new ApiError(
      403,
      'Forbidden host',
      `Host "${host ?? ''}" is not allowed: meshdesk only answers requests addressed to ${allowedHosts.join(', ')}`,
    );
  }
  const origin = request.headers.origin;
  const method = request.method ?? 'GET';
  const watchesEvents = request.url?.startsWith('/events') ?? false;
  if (origin !== undefined && (!SAFE_METHODS.has(method) || watchesEvents)) {
    if (!allowedHosts.some((allowed) => origin.toLowerCase() === `http://${allowed}`)) {
      throw new ApiError(403, 'Forbidden origin', `Origin "${origin}" is not allowed to use the meshdesk API`);
    }
  }
}
