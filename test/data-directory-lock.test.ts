import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DATABASE_FILE, startCore, type Core } from '../src/main/core.js';
import type { ResourceInput } from '../src/shared/resources.js';
import { LOCK_FILE, type InstanceInfo } from '../src/main/instance/instance-lock.js';
import { listen } from '../src/main/net/listen.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../src/main/xds/callbacks/dataplane-lifecycle.js';
import { DATAPLANE_METADATA_KEY } from '../src/main/xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL } from '../src/main/xds/protocol/type-urls.js';
import { decodeResource } from '../src/main/xds/protocol/decode.js';
import { RawAdsClient } from '../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from './support/core.js';
import { backendDataplane, clientDataplane } from './support/dataplanes.js';
import { eventually } from './support/eventually.js';
import { runHeadlessExpectingFailure } from './support/headless-process.js';
import { tempDir } from './support/temp-dir.js';

/** A proxy that registers its own Dataplane through node metadata, as Envoy with a generated bootstrap does. */
function connectProxy(core: Core, dataplane: { mesh: string; name: string }): RawAdsClient {
  const client = new RawAdsClient(core.xds.port, {
    id: `${dataplane.mesh}.${dataplane.name}`,
    user_agent_name: 'envoy',
    metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(dataplane) },
  });
  onTestFinished(() => client.close());
  return client;
}

/** Ports of the endpoints in an EDS response's first assignment. */
function ports(response: { resources: Parameters<typeof decodeResource>[0][] }): number[] {
  const assignment = decodeResource(response.resources[0]!) as {
    endpoints?: { lb_endpoints?: { endpoint: { address: { socket_address: { port_value: number } } } }[] }[];
  };
  return (assignment.endpoints ?? []).flatMap((locality) => (locality.lb_endpoints ?? []).map((lb) => lb.endpoint.address.socket_address.port_value));
}

/** Subscribes to the cluster's endpoints and reads responses (ACKing each) until they hold `expected`. */
async function awaitEndpoints(client: RawAdsClient, cluster: string, expected: number[]): Promise<void> {
  client.send(ENDPOINT_TYPE_URL, { names: [cluster] });
  for (;;) {
    const response = await client.next();
    client.ack(response);
    if (response.type_url === ENDPOINT_TYPE_URL && JSON.stringify(ports(response)) === JSON.stringify(expected)) return;
  }
}

/** The endpoints the core's current snapshot for `nodeId` holds for `cluster`. */
function snapshotEndpoints(core: Core, nodeId: string, cluster: string): number[] {
  const resource = core.xds.snapshots.getSnapshot(nodeId)?.get(ENDPOINT_TYPE_URL)?.resources.get(cluster);
  return resource ? ports({ resources: [resource.any] }) : [];
}

/** A Dataplane as a proxy registers it: labelled as the proxy's, so it goes when the proxy goes. */
function proxyRegistered(name: string, mesh: string): ResourceInput<'Dataplane'> {
  const { networking } = backendDataplane(name, 18080, 'echo', mesh);
  return { type: 'Dataplane', mesh, name, labels: { [ORIGIN_LABEL]: PROXY_ORIGIN }, spec: { networking } as ResourceInput<'Dataplane'>['spec'] };
}

/** Every row of the tables start-up could write, in a stable order. */
function databaseRows(dataDir: string): unknown {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    return {
      resources: db.prepare('SELECT * FROM resources ORDER BY type, mesh, name').all(),
      settings: db.prepare('SELECT * FROM settings ORDER BY name').all(),
    };
  } finally {
    db.close();
  }
}

/** The pid of a process that has exited: no process of this host has it (until the system reuses it). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('one data directory belongs to one running meshdesk', () => {
  for (const ports of ['the same ports', 'the same API port', 'other ports'] as const) {
    it(`a second start with ${ports} refuses, naming the owner, and leaves its proxies' Dataplanes and endpoints untouched`, async () => {
      const dataDir = tempDir();
      const first = await startTestCore(dataDir);
      // A deregistration at once, so that a second start that adopted the first one's proxies would delete their Dataplanes at once.
      first.settings.update({ 'xds.dataplaneDeregistrationDelay': '0s', 'xds.postCreateStrategy': 'invalidate' });
      const backend = connectProxy(first, backendDataplane('backend-1', 18080, 'backend'));
      backend.send(CLUSTER_TYPE_URL);
      backend.ack(await backend.next());
      const frontend = connectProxy(first, clientDataplane('frontend-1', 'backend'));
      frontend.send(CLUSTER_TYPE_URL);
      frontend.ack(await frontend.next());
      await awaitEndpoints(frontend, 'backend', [18080]);
      const dataplanesBefore = await first.manager.list('Dataplane');
      expect(dataplanesBefore.map((dataplane) => dataplane.meta.labels[ORIGIN_LABEL])).toEqual([PROXY_ORIGIN, PROXY_ORIGIN]);

      const apiPort = ports === 'other ports' ? 0 : first.api.port;
      const adsPort = ports === 'the same ports' ? first.xds.port : 0;
      const { code, output } = await runHeadlessExpectingFailure(['--data-dir', dataDir, '--api-port', String(apiPort), '--ads-port', String(adsPort)]);

      expect(code).toBe(1);
      expect(output).toContain(
        `data directory ${dataDir} is in use by meshdesk (pid ${process.pid}) serving the API on 127.0.0.1:${first.api.port} and ADS on 127.0.0.1:${first.xds.port}; stop it or choose another --data-dir`,
      );
      expect(await first.manager.list('Dataplane')).toEqual(dataplanesBefore);
      expect(first.xds.statusTracker.status('default.backend-1')?.online).toBe(true);
      expect(first.xds.statusTracker.status('default.frontend-1')?.online).toBe(true);
      expect(snapshotEndpoints(first, 'default.frontend-1', 'backend')).toEqual([18080]);
      // The lock is still the first one's.
      expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    });
  }

  it('a second core in the same process is refused too, and the directory is free again once the first closes', async () => {
    const dataDir = tempDir();
    const first = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    await expect(startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 })).rejects.toThrow(/is in use by meshdesk \(pid \d+\) serving the API/);
    await first.close();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    const second = await startTestCore(dataDir);
    expect(second.instance.takenOver).toBeUndefined();
  });

  it('takes over the lock of a meshdesk that died, and only then adopts its leftover Dataplanes', async () => {
    const dataDir = tempDir();
    const crashed = await startTestCore(dataDir);
    crashed.settings.update({ 'xds.dataplaneDeregistrationDelay': '0s' });
    // What a proxy registered before its meshdesk was killed: its Dataplane, labelled as the proxy's.
    await crashed.manager.create(proxyRegistered('leftover-1', 'default'));
    await crashed.close();
    const stale: InstanceInfo = { pid: deadPid(), hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z', apiAddress: '127.0.0.1:1', adsAddress: '127.0.0.1:2' };
    writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify(stale));

    const next = await startTestCore(dataDir);

    expect(next.instance.takenOver).toEqual(stale);
    expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({
      pid: process.pid,
      apiAddress: `127.0.0.1:${next.api.port}`,
      adsAddress: `127.0.0.1:${next.xds.port}`,
    });
    await eventually(async () => expect(await next.manager.list('Dataplane')).toEqual([]));
  });

  it('refuses a lock file it cannot read rather than guess whether its owner runs, naming the file to delete', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, LOCK_FILE), 'not a lock');
    await expect(startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 })).rejects.toThrow(
      `${join(dataDir, LOCK_FILE)} is not a meshdesk lock file; if no meshdesk runs on this data directory, delete it`,
    );
    expect(existsSync(join(dataDir, DATABASE_FILE))).toBe(false);
  });

  it('a start that fails (port taken) writes nothing: no adopted leftover deleted, no default mesh created, no lock left', async () => {
    const dataDir = tempDir();
    const before = await startTestCore(dataDir);
    before.settings.update({ 'xds.dataplaneDeregistrationDelay': '0s' });
    await before.manager.create({ type: 'Mesh', mesh: '', name: 'other', labels: {}, spec: {} });
    await before.manager.create(proxyRegistered('leftover-1', 'other'));
    await before.manager.delete({ type: 'Mesh', mesh: '', name: 'default' });
    await before.close();
    const rows = databaseRows(dataDir);

    const blocker = createServer();
    const taken = await listen(blocker, { host: '127.0.0.1', port: 0, purpose: 'test blocker' });
    onTestFinished(() => void blocker.close());
    await expect(startCore({ dataDir, host: '127.0.0.1', apiPort: taken, adsPort: 0 })).rejects.toThrow(/already in use/);

    expect(databaseRows(dataDir)).toEqual(rows);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });
});
