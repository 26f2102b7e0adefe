import { execSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { LONG_RUN } from '../../../../test/reliability/support/seeded-random.js';
import { rawRequest, startTestCore } from '../../../../test/support/core.js';
import { eventually } from '../../../../test/support/eventually.js';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { withControlPlaneCert } from '../../../../test/support/with-control-plane-cert.js';
import { DEFAULT_CONNECTION_LIMITS } from '../../net/connection-limits.js';
import { loadOrCreateControlPlaneCert } from '../../tls/control-plane-cert.js';
import { CLUSTER_TYPE_URL } from '../protocol/type-urls.js';
import { AdsServer } from './ads-server.js';
import { AdsTestbed, EVERYTHING, NODE_ID } from './testing/ads-testbed.js';
import { RawAdsClient } from './testing/raw-ads-client.js';

/**
 * Connections that never say anything (issue 27: 20,000 of them used up the file descriptors and
 * every new API and ADS connection was reset). Both ends of each connection are in this process,
 * two descriptors each: the short run stays far below a 1,024 limit; the long one goes as far as
 * this process's limit allows, up to 20,000.
 */
const FD_LIMIT = Number(execSync('ulimit -n', { shell: '/bin/sh' }).toString().trim()) || 1024;
const ATTACK = LONG_RUN ? Math.min(20_000, Math.floor((FD_LIMIT - 512) / 2)) : 300;

let bed: AdsTestbed;

beforeEach(() => {
  bed = new AdsTestbed();
});

afterEach(async () => {
  await bed.close();
});

/** `count` connections to `port` that never send a byte; `closed()` counts those the server closed. */
async function idleConnections(port: number, count: number): Promise<{ sockets: Socket[]; closed: () => number }> {
  let closed = 0;
  const sockets: Socket[] = [];
  for (let index = 0; index < count; index++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.on('close', () => (closed += 1));
    sockets.push(socket);
    // Connected one by one, so that "oldest" means something and the listen backlog never overflows.
    await new Promise((resolve) => socket.once('connect', resolve).once('close', resolve));
  }
  bedSockets.push(...sockets);
  return { sockets, closed: () => closed };
}
const bedSockets: Socket[] = [];
afterEach(() => {
  for (const socket of bedSockets.splice(0)) socket.destroy();
});

/** A client on a connection of its own (gRPC shares one connection per target between clients unless told not to). */
function ownConnectionClient(port: number, nodeId: string): RawAdsClient {
  const client = new RawAdsClient(port, { id: nodeId }, { options: { 'grpc.use_local_subchannel_pool': 1 } });
  ownClients.push(client);
  return client;
}
const ownClients: RawAdsClient[] = [];
afterEach(() => {
  for (const client of ownClients.splice(0)) client.close();
});

describe('connections to the ADS port', () => {
  test(`${ATTACK} connections that never send a byte: the oldest make room beyond maxPending, and a new client is served while the rest are open`, async () => {
    const maxPending = 50;
    const { server, port } = await bed.start({ connections: { maxPending, firstByteTimeoutMs: 10 * 60_000 } });
    bed.setSnapshot('v1', EVERYTHING);
    const idle = await idleConnections(port, ATTACK);
    await eventually(() => expect(idle.closed()).toBe(ATTACK - maxPending));
    expect(server.connections).toEqual({ served: 0, pending: maxPending });

    const client = bed.sotwClient(port);
    client.send(CLUSTER_TYPE_URL);
    expect((await client.next()).version_info).toBe('v1');
    // Its arrival closed one more of the idle ones, the oldest; the others are still open.
    expect(idle.closed()).toBe(ATTACK - maxPending + 1);
    expect(server.connections).toEqual({ served: 1, pending: maxPending - 1 });
  });

  test('a connection that sends nothing is closed at the first-byte deadline', async () => {
    const { server, port } = await bed.start({ connections: { firstByteTimeoutMs: 300 } });
    const idle = await idleConnections(port, 20);
    await eventually(() => expect(idle.closed()).toBe(20));
    await eventually(() => expect(server.connections).toEqual({ served: 0, pending: 0 }));
  });

  test('over TLS: a handshake left unfinished, and a finished one followed by nothing, are closed at the TLS deadline', async () => {
    const { cert, key } = loadOrCreateControlPlaneCert(withControlPlaneCert(tempDir()));
    const server = new AdsServer({ snapshots: bed.cache, connections: { tlsHandshakeTimeoutMs: 300 } });
    const port = await server.start({ port: 0, tls: { cert, key, http: (_request, response) => response.end() } });
    try {
      const unfinished = connect(port, '127.0.0.1', () => unfinished.write(Buffer.from([0x16]))); // the start of a ClientHello
      unfinished.on('error', () => {});
      const silent = connectTls({ port, host: '127.0.0.1', rejectUnauthorized: false });
      silent.on('error', () => {});
      const handshook = new Promise((resolve) => silent.once('secureConnect', resolve));
      const closed = (socket: Socket) => new Promise((resolve) => socket.once('close', resolve));
      await handshook;
      await Promise.all([closed(unfinished), closed(silent)]);
      await eventually(() => expect(server.connections).toEqual({ served: 0, pending: 0 }));
    } finally {
      await server.stop();
    }
  });

  test('beyond maxServed a gRPC client is refused with RESOURCE_EXHAUSTED naming the bound, and served once a place is free', async () => {
    const { server, port } = await bed.start({ connections: { maxServed: 2 } });
    bed.setSnapshot('v1', EVERYTHING);
    bed.setSnapshot('v1', EVERYTHING, 'default.second');
    bed.setSnapshot('v1', EVERYTHING, 'default.third');
    const first = ownConnectionClient(port, NODE_ID);
    const second = ownConnectionClient(port, 'default.second');
    for (const client of [first, second]) {
      client.send(CLUSTER_TYPE_URL);
      expect((await client.next()).version_info).toBe('v1');
    }
    const third = ownConnectionClient(port, 'default.third');
    third.send(CLUSTER_TYPE_URL);
    expect(await third.status).toMatchObject({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: 'the ADS port serves at most 2 connections at once and all are in use; close unused proxies or clients and retry',
    });
    expect(server.connections.served).toBe(2);

    first.close();
    await eventually(() => expect(server.connections.served).toBe(1));
    const fourth = ownConnectionClient(port, 'default.third');
    fourth.send(CLUSTER_TYPE_URL);
    expect((await fourth.next()).version_info).toBe('v1');
  });
});

describe('the control plane under an idle-connection attack on its ADS port', () => {
  test(`with ${ATTACK} idle connections open on the ADS port, the API still answers and the port holds at most maxPending of them`, async () => {
    const core = await startTestCore();
    const idle = await idleConnections(core.xds.port, ATTACK);
    const held = Math.min(ATTACK, DEFAULT_CONNECTION_LIMITS.maxPending);
    await eventually(() => expect(idle.closed()).toBe(ATTACK - held));
    expect((await rawRequest(`${core.api.url}/meshes`)).status).toBe(200);
    expect(core.xds.server.connections.pending).toBe(held);
  });
});
