// The mesh CA's private key stays in the data directory: it is never part of an API answer, an
// event, a log line or an export. Neither is a proxy's own private key, which only its ADS stream
// carries (SDS). A real headless meshdesk, a real ADS client, every GET route the API has.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { MESH_CA_FOLDER } from '../../src/main/mtls/mesh-ca-store.js';
import { decodeResource } from '../../src/main/xds/protocol/decode.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL, SECRET_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import type { Node } from '../../src/main/xds/protocol/ads-service.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { eventually } from '../support/eventually.js';
import { startHeadless } from '../support/headless-process.js';
import { tempDir } from '../support/temp-dir.js';

/** Every GET route pattern the API serves, from the router the core builds. */
async function getRoutePatterns(): Promise<string[]> {
  const core: Core = await startTestCore();
  return core.api
    .routes()
    .filter((route) => route.method === 'GET' && route.path !== '/events' && !route.path.includes('*'))
    .map((route) => route.path);
}

/** The base64 lines of a PEM: any of them in a text means the key (or a part of it) leaked. */
function pemLines(pem: string): string[] {
  return pem.split('\n').filter((line) => line !== '' && !line.startsWith('-----'));
}

/** The text and every long base64 run in it decoded: xDS JSON carries PEMs as base64 bytes (`inline_bytes`). */
function withDecodedBase64(text: string): string {
  const decoded = [...text.matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)].map(([run]) => Buffer.from(run, 'base64').toString('latin1'));
  return [text, ...decoded].join('\n');
}

/** Each needle found in the text, with where: the leaks. */
function leaks(where: string, text: string, needles: Record<string, string[]>): string[] {
  const haystack = withDecodedBase64(text);
  return Object.entries(needles).flatMap(([what, lines]) => (lines.some((line) => haystack.includes(line)) ? [`${what} in ${where}`] : []));
}

describe('the mesh CA key', () => {
  it('never appears in an API answer, an event, a log line or an export', async () => {
    const patterns = await getRoutePatterns();
    const dataDir = tempDir();
    const headless = await startHeadless(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    let stopped = false;
    onTestFinished(async () => {
      if (!stopped) await headless.stop();
    });
    const api = headless.apiUrl;

    // Events from before anything mTLS happens until the end.
    const events = new AbortController();
    let eventText = '';
    const eventsRead = fetch(`${api}/events`, { signal: events.signal }).then(async (response) => {
      for await (const chunk of response.body!) eventText += Buffer.from(chunk).toString();
    }).catch(() => undefined);

    const mtls = (expiration: string) => ({ enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', dpCert: { rotation: { expiration } } }] });
    const putMesh = (expiration: string) => fetch(`${api}/meshes/default`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'default', mtls: mtls(expiration) }) });
    expect((await putMesh('1h')).status).toBe(200);
    const dataplane = {
      type: 'Dataplane',
      mesh: 'default',
      name: 'web-1',
      networking: { address: '127.0.0.1', inbound: [{ port: 18080, tags: { 'kuma.io/service': 'web' } }], outbound: [{ port: 10001, tags: { 'kuma.io/service': 'web' } }] },
    };
    await fetch(`${api}/meshes/default/dataplanes/web-1`, { method: 'PUT', body: JSON.stringify(dataplane) });

    // A proxy connects with the token of its bootstrap and takes its identity; a new lifetime renews it.
    const chain = (await (await fetch(`${api}/xds/chain`)).json()) as { ads: { port: number } };
    const bootstrap = (await (await fetch(`${api}/meshes/default/dataplanes/web-1/bootstrap?proxyType=grpc`)).json()) as { node: Node };
    const proxy = new RawAdsClient(chain.ads.port, { id: 'default.web-1', metadata: bootstrap.node.metadata });
    onTestFinished(() => proxy.close());
    proxy.send(CLUSTER_TYPE_URL);
    proxy.ack(await proxy.next());
    proxy.send(LISTENER_TYPE_URL);
    proxy.ack(await proxy.next());
    proxy.send(SECRET_TYPE_URL, { names: ['identity_cert:secret:default', 'mesh_ca:secret:default'] });
    const proxyKeys: string[] = [];
    for (let secrets = 0; secrets < 2; secrets++) {
      const response = await proxy.next();
      const identity = response.resources.map(decodeResource).find((secret) => secret.tls_certificate !== undefined)!;
      const keyBytes = ((identity.tls_certificate as Record<string, unknown>).private_key as { inline_bytes: string }).inline_bytes;
      proxyKeys.push(...pemLines(Buffer.from(keyBytes, 'base64').toString()));
      proxy.ack(response);
      if (secrets === 0) expect((await putMesh('2h')).status).toBe(200);
    }

    const caKey = readFileSync(join(dataDir, MESH_CA_FOLDER, 'default', 'ca-1.key'), 'utf8');
    const needles = { 'the mesh CA key': pemLines(caKey), "the proxy's private key": proxyKeys };
    // The needles are real: the proxy did get its key, which shares nothing with the CA's.
    expect(needles['the mesh CA key'].length).toBeGreaterThan(10);
    // Two identities' P-256 keys, three base64 lines each.
    expect(proxyKeys.length).toBeGreaterThanOrEqual(6);

    const history = (await (await fetch(`${api}/meshes/default/dataplanes/web-1/_history`)).json()) as { items: { id: number }[] };
    expect(history.items.length).toBeGreaterThan(1);
    const params: Record<string, string> = { mesh: 'default', name: 'web-1', id: String(history.items[0]!.id) };
    const found: string[] = [];
    const answered: string[] = [];
    for (const pattern of patterns) {
      const path = pattern.replace(/:([a-z]+)/gi, (_, param: string) => params[param] ?? 'x');
      const response = await fetch(`${api}${path}`);
      const body = await response.text();
      if (response.ok) answered.push(path);
      found.push(...leaks(`GET ${path}`, body, needles));
    }
    // Every history entry, not only the newest.
    for (const { id } of history.items) {
      found.push(...leaks(`history ${id}`, await (await fetch(`${api}/meshes/default/dataplanes/web-1/_history/${id}`)).text(), needles));
    }
    expect(answered).toEqual(expect.arrayContaining(['/meshes/default/_mtls', '/meshes/default/dataplanes/web-1/xds', '/export']));

    await eventually(() => expect(eventText).toContain('web-1'));
    events.abort();
    await eventsRead;
    found.push(...leaks('the event stream', eventText, needles));
    proxy.close();
    await headless.stop();
    stopped = true;
    found.push(...leaks('the log', headless.output(), needles));
    expect(found).toEqual([]);
  });
});
