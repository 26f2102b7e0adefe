import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES } from '../../src/main/config/settings-schema.js';
import { apiObservableState } from '../support/api-observable-state.js';
import { startTestCore } from '../support/core.js';
import { send, type SentResponse } from '../security/http.js';
import { hostileText, resourceLike, validDataplane } from './arbitraries.js';
import { LONG_TIMEOUT_MS, numRuns } from './run-counts.js';

/**
 * Random requests against the real HTTP API of a real core: whatever the method, path and body,
 * the answer is a success or a 4xx with a JSON error (title, details, causes), never a 5xx, and a
 * refused request leaves every resource, setting and token exactly as it was.
 */

/** Percent-encodes, byte by byte, what a request line cannot carry as is (lone surrogates become U+FFFD). */
function percentEncodeUnsafe(text: string): string {
  return text.replace(/[^\x21-\x7e]|[?#%/]/gu, (char) =>
    [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('meshes', 'default', 'dataplanes', 'backend-1', 'settings', 'schema', 'token', 'dataplane-tokens', '_status', '_timeline', '_history', '_first-config', 'xds', 'bootstrap', 'proxies', 'cache', 'metrics', 'dataplanes+insights', 'dataplanes+status', '_overview', '_kri', '1') },
  { weight: 2, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2F', '..%2F..%2Fetc%2Fpasswd', '%00', '%', '%zz', '%E0%A4%A', '%C0%AE', '~', '%20', '%F0%9F%92%A5', 'a'.repeat(300), 'Default', 'DEFAULT', 'x.y', 'events') },
  // Any text, percent-encoded where a request line cannot carry it as is.
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(percentEncodeUnsafe) },
);
const path = fc
  .tuple(fc.array(segment, { maxLength: 6 }), fc.constantFrom('', '/', '?proxyType=grpc', '?format=xml', '?%zz', '#frag'))
  .map(([segments, suffix]) => `/${segments.join('/')}${suffix}`);

const settingsPatch = fc
  .dictionary(fc.oneof(fc.constantFrom(...SETTING_NAMES), fc.string()), fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constantFrom('1s', '0s', '2h', 'sleep', 'enabled', '-1s', '1e9h')), { maxKeys: 3 })
  .map((patch) => JSON.stringify(patch));

const body = fc.oneof(
  fc.constant(undefined),
  validDataplane(fc.constant('default')).map((value) => JSON.stringify(value)),
  validDataplane(fc.constant('default')).map((value) => stringify(value)),
  resourceLike.map((value) => JSON.stringify(value)),
  resourceLike.map((value) => stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  settingsPatch,
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.uint8Array({ maxLength: 100 }).map((bytes) => Buffer.from(bytes)),
  hostileText,
  fc.constant('x'.repeat(1024 * 1024 + 1)), // over the body limit
);

const method = fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD');

const contentType = fc.constantFrom(undefined, 'application/json', 'application/yaml', 'text/plain', 'multipart/form-data; boundary=x');

function expectJsonError(response: SentResponse, request: string): void {
  expect(response.headers['content-type'], request).toBe('application/json');
  const parsed = JSON.parse(response.body) as Record<string, unknown>;
  expect(parsed, request).toMatchObject({ type: '/std-errors', status: expect.any(Number), title: expect.any(String), detail: expect.any(String), details: expect.any(String) });
}

describe('random HTTP API requests', () => {
  it(
    'get a success or a 4xx with a JSON error, never a 5xx, and a refused request writes nothing',
    async () => {
      const core = await startTestCore();
      // Something to break: a mesh with a Dataplane, a token.
      await send(`${core.api.url}/meshes/demo`, 'PUT', {}, JSON.stringify({ type: 'Mesh', name: 'demo' }));
      core.xds.dataplaneTokens.issue({ mesh: 'default', name: 'backend-1' });
      const statuses = new Map<number, number>();

      await fc.assert(
        fc.asyncProperty(method, path, body, contentType, async (verb, target, payload, type) => {
          const request = `${verb} ${target} (${payload === undefined ? 'no body' : `${payload.length}-byte body`})`;
          const before = await apiObservableState(core);
          const response = await send(`${core.api.url}${target}`, verb, type ? { 'content-type': type } : {}, payload);
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);

          expect(response.status, `${request} answered ${response.status}: ${response.body.slice(0, 300)}`).toBeLessThan(500);
          if (response.status >= 400) {
            if (verb !== 'HEAD') expectJsonError(response, request);
            expect(await apiObservableState(core), `${request} was refused but changed state`).toEqual(before);
          }
          if (verb === 'GET' || verb === 'HEAD' || verb === 'OPTIONS') expect(await apiObservableState(core), `${request} changed state`).toEqual(before);
        }),
        { numRuns: numRuns(300, 20_000) },
      );
      // The run did reach the handlers, not only the router's 404.
      expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
      expect([...statuses.keys()]).toEqual(expect.arrayContaining([400, 404]));
    },
    LONG_TIMEOUT_MS,
  );

  it('answers an oversized body with 413 and a JSON error, and stays up', async () => {
    const core = await startTestCore();
    const response = await send(`${core.api.url}/meshes/default/dataplanes/backend-1`, 'PUT', {}, 'x'.repeat(8 * 1024 * 1024));
    expect(response.status).toBe(413);
    expectJsonError(response, 'PUT 8 MB');
    expect((await send(`${core.api.url}/meshes`, 'GET')).status).toBe(200);
  });
});
