import { status, type StatusObject } from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { connect as connectTcp } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import type { ProxyStatus } from '../../src/main/xds/callbacks/status-tracker.js';
import { MAX_METADATA_DATAPLANE_BYTES } from '../../src/main/xds/callbacks/metadata-dataplane.js';
import { DATAPLANE_METADATA_KEY, DATAPLANE_TOKEN_METADATA_KEY } from '../../src/main/xds/generate/bootstrap.js';
import { PROXY_TYPE_METADATA_KEY } from '../../src/main/xds/generate/proxy.js';
import { DEFAULT_MAX_CONNECTION_IDLE_MS, DEFAULT_MAX_RESPONSE_BYTES } from '../../src/main/xds/server/ads-server.js';
import { adsServiceDefinition, type DiscoveryResponse, type Node } from '../../src/main/xds/protocol/ads-service.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { numRuns } from '../fuzz/run-counts.js';

function connect(core: Core, node: Node): RawAdsClient {
  const client = new RawAdsClient(core.xds.port, node);
  onTestFinished(() => client.close());
  return client;
}

async function proxyStatus(core: Core, name: string): Promise<ProxyStatus & { subscriptions: unknown[] }> {
  const response = await fetch(`${core.api.url}/meshes/default/dataplanes/${name}/_status`);
  expect(response.status).toBe(200);
  return (await response.json()) as ProxyStatus & { subscriptions: unknown[] };
}

/** A Dataplane with `count` outbounds, each to its own service with a `nameLength`-character name. */
function dataplaneWithOutbounds(name: string, count: number, nameLength: number) {
  return {
    type: 'Dataplane' as const,
    mesh: 'default',
    name,
    labels: {},
    spec: {
      networking: {
        address: '127.0.0.1',
        outbound: Array.from({ length: count }, (_, index) => ({
          port: 10_000 + index,
          tags: { 'kuma.io/service': `service-${index}-${'x'.repeat(nameLength)}` },
        })),
      },
    },
  };
}

describe('a proxy that NACKs everything', () => {
  it('is answered at most once per backoff per type while its config keeps changing, and its NACK reasons show in its status', async () => {
    const core = await startTestCore();
    const backoffMs = 250;
    core.settings.update({
      'xds.nackBackoff': `${backoffMs}ms`,
      'xds.dataplaneConfigurationRefreshInterval': '10ms',
      'store.cache.expirationTime': '0s',
    });
    await applyDataplane(core, clientDataplane('web-1'));
    const client = connect(core, { id: 'default.web-1' });
    client.send(CLUSTER_TYPE_URL);
    client.send(LISTENER_TYPE_URL);

    // The proxy rejects every response, naming the resource it chokes on.
    const received: { typeUrl: string; at: number }[] = [];
    let nacking = true;
    void (async () => {
      while (nacking) {
        const response: DiscoveryResponse = await client.next();
        received.push({ typeUrl: response.type_url, at: Date.now() });
        client.nack(response, `${response.type_url.split('.').at(-1)} "outbound:127.0.0.1:10001": rejected by a picky proxy`);
      }
    })().catch(() => {});
    await eventually(() => expect(received.length).toBeGreaterThanOrEqual(2));

    // Meanwhile its config changes all the time: each write moves its outbound port.
    const windowStart = Date.now();
    const windowMs = 2_000;
    for (let write = 0; Date.now() - windowStart < windowMs; write++) {
      const dataplane = clientDataplane('web-1');
      dataplane.networking.outbound[0]!.port = 11_000 + (write % 1000);
      await applyDataplane(core, dataplane);
    }
    const windowEnd = Date.now();
    nacking = false;

    // Upper bound only: a slow machine answers less often, never more. One per backoff, plus one at
    // each edge of the window: a push may leave just before the proxy's NACK of the previous
    // response arrives (that NACK is then stale, and backs off too).
    const bound = Math.floor((windowEnd - windowStart) / backoffMs) + 2;
    for (const typeUrl of [CLUSTER_TYPE_URL, LISTENER_TYPE_URL]) {
      const inWindow = received.filter((each) => each.typeUrl === typeUrl && each.at >= windowStart && each.at <= windowEnd);
      expect(inWindow.length, `${typeUrl} responses in ${windowEnd - windowStart} ms`).toBeLessThanOrEqual(bound);
    }
    // It is still served: new versions keep coming after its NACKs, just not faster than the backoff.
    expect(received.filter((each) => each.typeUrl === LISTENER_TYPE_URL && each.at >= windowStart).length).toBeGreaterThanOrEqual(1);

    const proxy = await proxyStatus(core, 'web-1');
    const listeners = proxy.types.find((type) => type.typeUrl === LISTENER_TYPE_URL)!;
    expect(listeners.lastNack).toMatchObject({ error: 'Listener "outbound:127.0.0.1:10001": rejected by a picky proxy', acceptedVersion: '' });
    expect(listeners.counts.nacks).toBeGreaterThanOrEqual(1);
    expect(listeners.lastAcked).toBeUndefined();
    expect(proxy.types.find((type) => type.typeUrl === CLUSTER_TYPE_URL)!.lastNack?.error).toMatch(/^Cluster /);
  });
});

describe('a config over 4 MB', () => {
  it('is not sent: the proxy keeps its last accepted config, the drop shows in its status and timeline, and a smaller config gets through again', async () => {
    const core = await startTestCore();
    core.settings.update({ 'xds.dataplaneConfigurationRefreshInterval': '50ms', 'store.cache.expirationTime': '0s' });
    await core.manager.upsert(dataplaneWithOutbounds('web-1', 1, 10));
    const client = connect(core, { id: 'default.web-1' });
    client.send(CLUSTER_TYPE_URL);
    client.send(LISTENER_TYPE_URL);
    const first = new Map<string, DiscoveryResponse>();
    for (let index = 0; index < 2; index++) {
      const response = await client.next();
      first.set(response.type_url, response);
      client.ack(response);
    }
    await eventually(async () => expect((await proxyStatus(core, 'web-1')).types.every((type) => type.lastAcked)).toBe(true));

    // 1000 listeners with 2000-character names: about 5 MB of LDS, 2 MB of CDS. Written through
    // the manager: the API refuses bodies over 1 MB, a bulk import or a proxy's metadata does not.
    await core.manager.upsert(dataplaneWithOutbounds('web-1', 1000, 2000));

    const clusters = await client.next(); // CDS stays under the limit and is sent
    expect(clusters.type_url).toBe(CLUSTER_TYPE_URL);
    expect(clusters.resources).toHaveLength(1000);
    client.ack(clusters);
    const dropped = await eventually(async () => {
      const timeline = (await (await fetch(`${core.api.url}/meshes/default/dataplanes/web-1/_timeline`)).json()) as { events: { kind: string }[] };
      const event = timeline.events.find((each) => each.kind === 'response-dropped');
      expect(event).toBeDefined();
      return event as { kind: string; typeUrl: string; error: string; version: string };
    });
    expect(dropped.typeUrl).toBe(LISTENER_TYPE_URL);
    expect(dropped.error).toMatch(
      new RegExp(`^lds response version \\S+ for proxy "default\\.web-1" is \\d+ bytes, over the ${DEFAULT_MAX_RESPONSE_BYTES}-byte limit: not sent, the proxy keeps its last configuration$`),
    );
    const listeners = (await proxyStatus(core, 'web-1')).types.find((type) => type.typeUrl === LISTENER_TYPE_URL)!;
    expect(listeners).toMatchObject({
      lastAcked: { version: first.get(LISTENER_TYPE_URL)!.version_info },
      lastSent: { version: first.get(LISTENER_TYPE_URL)!.version_info },
      lastDropped: { version: dropped.version, error: dropped.error },
      counts: { responses: 1, dropped: 1 },
    });

    await core.manager.upsert(dataplaneWithOutbounds('web-1', 2, 10));

    // Whatever comes next is the small config: the oversized one never reached the proxy.
    const recovered = await eventually(async () => {
      const response = await client.next();
      if (response.type_url !== LISTENER_TYPE_URL) {
        client.ack(response);
        throw new Error('not LDS yet');
      }
      return response;
    });
    expect(recovered.resources).toHaveLength(2);
    expect(recovered.version_info).not.toBe(dropped.version);
  });
});

describe('malformed node metadata', () => {
  const cases: { problem: string; metadata: Record<string, unknown>; details: RegExp }[] = [
    {
      problem: 'a Dataplane that is not text',
      metadata: { [DATAPLANE_METADATA_KEY]: 42 },
      details: /node metadata "dataplane\.resource".*must be a string holding the Dataplane as JSON or YAML/,
    },
    { problem: 'a Dataplane that is not YAML', metadata: { [DATAPLANE_METADATA_KEY]: 'type: [Dataplane' }, details: /invalid Dataplane in node metadata "dataplane\.resource"/ },
    { problem: 'a Dataplane nested 10 000 levels deep', metadata: { [DATAPLANE_METADATA_KEY]: '['.repeat(10_000) }, details: /nested deeper than 64 levels/ },
    {
      problem: 'a Dataplane over the size limit (the issue 12 attack: 300 KB of keys)',
      metadata: { [DATAPLANE_METADATA_KEY]: Array.from({ length: 30_000 }, (_, index) => `k${index}: v`).join('\n') },
      details: new RegExp(`node metadata "dataplane\\.resource".*is \\d+ bytes; the limit is ${MAX_METADATA_DATAPLANE_BYTES} bytes`),
    },
    { problem: 'an unknown proxy type', metadata: { [PROXY_TYPE_METADATA_KEY]: 'nginx' }, details: /node metadata "meshdesk\.proxyType" must be "envoy" or "grpc", got "nginx"/ },
  ];

  for (const { problem, metadata, details } of cases) {
    it(`closes only that stream, with INVALID_ARGUMENT naming the problem: ${problem}`, async () => {
      const core = await startTestCore();
      await applyDataplane(core, backendDataplane('backend-1', 18080));
      const bystander = connect(core, { id: 'default.backend-1' });
      bystander.send(CLUSTER_TYPE_URL);
      await bystander.next();

      const bad = connect(core, { id: 'default.bad-1', metadata });
      bad.send(CLUSTER_TYPE_URL);

      expect(await bad.status).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(details) });
      expect((await bad.status).details).toContain('default.bad-1');
      bystander.send(LISTENER_TYPE_URL);
      expect((await bystander.next()).type_url).toBe(LISTENER_TYPE_URL);
      expect(core.xds.server.streams().map((stream) => stream.nodeId)).toEqual(['default.backend-1']);
    });
  }

  it('any metadata value under meshdesk\'s keys is served or refused with INVALID_ARGUMENT/UNAUTHENTICATED, never a server error', async () => {
    const core = await startTestCore();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
    // It holds a token, so that turning tokens on and off along the run does not disconnect it.
    const token = core.xds.dataplaneTokens.issue({ mesh: 'default', name: 'bystander' }).token;
    const bystander = connect(core, { id: 'default.bystander', metadata: { [DATAPLANE_TOKEN_METADATA_KEY]: token } });
    bystander.send(CLUSTER_TYPE_URL);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            [DATAPLANE_METADATA_KEY]: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string(), fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value))),
            [PROXY_TYPE_METADATA_KEY]: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('envoy', 'grpc')),
            [DATAPLANE_TOKEN_METADATA_KEY]: fc.jsonValue({ maxDepth: 2 }),
          },
          { requiredKeys: [] },
        ),
        fc.boolean(),
        async (metadata, tokensOn) => {
          core.settings.update({ 'xds.dataplaneTokens': tokensOn ? 'enabled' : 'disabled' });
          const proxyId = `default.random-${++run}`;
          const client = new RawAdsClient(core.xds.port, { id: proxyId, metadata });
          try {
            client.send(CLUSTER_TYPE_URL);
            // Accepted: the whole chain let it through (the status tracker, 4th, has it online). A proxy
            // without a Dataplane is accepted and then waits for one, so "served" cannot be the test.
            let closed: StatusObject | undefined;
            void client.status.then((final) => (closed = final));
            const outcome = await eventually(() => {
              if (closed) return closed;
              if (core.xds.statusTracker.status(proxyId)?.online) return 'accepted' as const;
              throw new Error(`${proxyId} neither accepted nor refused yet`);
            });
            if (outcome !== 'accepted') expect([status.INVALID_ARGUMENT, status.UNAUTHENTICATED]).toContain(outcome.code);
          } finally {
            client.close();
          }
        },
      ),
      { numRuns: numRuns(30, 1000) },
    );
    core.settings.update({ 'xds.dataplaneTokens': 'disabled' });
    expect(core.xds.server.streams().map((stream) => stream.nodeId)).toContain('default.bystander');
  });
});

/** TCP sockets of this machine on local `port`, by state ('08' is CLOSE-WAIT), from /proc/net/tcp. */
function socketStates(port: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local && Number.parseInt(local.split(':')[1]!, 16) === port) counts[state!] = (counts[state!] ?? 0) + 1;
    }
  }
  return counts;
}

describe('a client that cancels a burst of streams and half-closes its connection', () => {
  it('leaves no stream and no connection in CLOSE-WAIT behind (issue 12: one per burst of 2,000)', async () => {
    const core = await startTestCore();
    const { server, port } = core.xds;
    const definition = adsServiceDefinition().StreamAggregatedResources;
    const socket = connectTcp(port, '127.0.0.1');
    const session = http2.connect(`http://127.0.0.1:${port}`, { createConnection: () => socket });
    session.on('error', () => {});
    const streams = Array.from({ length: 2000 }, (_, index) => {
      const stream = session.request({ ':method': 'POST', ':path': definition.path, 'content-type': 'application/grpc', te: 'trailers' });
      stream.on('error', () => {});
      const body = definition.requestSerialize({ version_info: '', node: { id: `default.p${index}` }, resource_names: [], type_url: CLUSTER_TYPE_URL, response_nonce: '' });
      const frame = Buffer.alloc(5 + body.length);
      frame.writeUInt32BE(body.length, 1);
      body.copy(frame, 5);
      stream.write(frame);
      return stream;
    });
    await eventually(() => expect(server.streamCount).toBe(2000));

    // The connection half-closes while the server still tears the cancelled streams down.
    for (const stream of streams) stream.close(http2.constants.NGHTTP2_CANCEL);
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.end(); // FIN; the client's side stays open

    await eventually(() => expect(server.streamCount).toBe(0));
    // Closed once idle for DEFAULT_MAX_CONNECTION_IDLE_MS.
    await eventually(() => expect(socketStates(port)['08'] ?? 0, 'server sockets in CLOSE-WAIT').toBe(0), { deadlineMs: 4 * DEFAULT_MAX_CONNECTION_IDLE_MS });
    socket.destroy();
  }, 6 * DEFAULT_MAX_CONNECTION_IDLE_MS);
});
