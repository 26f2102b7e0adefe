import { request } from 'node:http';
import { startCore, type Core } from '../../src/main/core.js';
import { withControlPlaneCert } from './with-control-plane-cert.js';
import { tempDir } from './temp-dir.js';
import { onScopeFinished } from './test-scope.js';

/**
 * A real core on ephemeral loopback ports, closed after the test (or the file, from a beforeAll):
 * on `dataDir`, else on a fresh temp data directory that already holds the ADS port's certificate
 * pair (`withControlPlaneCert`).
 */
export async function startTestCore(dataDir = withControlPlaneCert(tempDir())): Promise<Core> {
  const core = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
  onScopeFinished(() => core.close());
  return core;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTP request with full control of the headers (fetch forbids setting Host). */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
