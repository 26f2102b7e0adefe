import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DATABASE_FILE, startCore, type Core } from '../src/main/core.js';
import type { ResourceInput } from '../src/shared/resources.js';
import { INSTANCE_FILE, readInstanceInfo, type InstanceInfo } from '../src/main/instance/instance-file.js';
import { listen } from '../src/main/net/listen.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../src/main/xds/callbacks/dataplane-lifecycle.js';
import { DATAPLANE_METADATA_KEY } from '../src/main/xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL } from '../src/main/xds/protocol/type-urls.js';
import { decodeResource } from '../src/main/xds/protocol/decode.js';
import { RawAdsClient } from '../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from './support/core.js';
import { backendDataplane, clientDataplane } from './support/dataplanes.js';
import { eventually } from './support/eventually.js';
import { headlessBundle, runHeadlessExpectingFailure, startHeadless } from './support/headless-process.js';
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

/** Every row of the tables start-up could write, in a stable order, read through `db` or a connection of its own to the directory's database. */
function databaseRows(db: string | Database.Database): unknown {
  const connection = typeof db === 'string' ? new Database(join(db, DATABASE_FILE), { readonly: true }) : db;
  try {
    return {
      resources: connection.prepare('SELECT * FROM resources ORDER BY type, mesh, name').all(),
      settings: connection.prepare('SELECT * FROM settings ORDER BY name').all(),
    };
  } finally {
    if (connection !== db) connection.close();
  }
}

/** The pid of a process that has exited: no process of this host has it (until the system reuses it). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/** A stale instance file naming `pid`, as a meshdesk that ended without removing it leaves one. */
function staleInstanceFile(dataDir: string, pid: number): InstanceInfo {
  const stale: InstanceInfo = { pid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z', apiAddress: '127.0.0.1:1', adsAddress: '127.0.0.1:2' };
  writeFileSync(join(dataDir, INSTANCE_FILE), JSON.stringify(stale));
  return stale;
}

/** A data directory that a core used and closed, leaving a proxy-registered Dataplane and a deregistration at once. */
async function directoryWithLeftover(): Promise<string> {
  const dataDir = tempDir();
  const crashed = await startTestCore(dataDir);
  crashed.settings.update({ 'xds.dataplaneDeregistrationDelay': '0s' });
  // What a proxy registered before its meshdesk was killed: its Dataplane, labelled as the proxy's.
  await crashed.manager.create(proxyRegistered('leftover-1', 'default'));
  await crashed.close();
  return dataDir;
}

/** A start on the directory proceeds, names the file it found as taken over, and adopts the leftover. */
async function expectTakenOver(dataDir: string, previous: InstanceInfo): Promise<void> {
  const next = await startTestCore(dataDir);
  expect(next.instance.takenOver).toEqual(previous);
  expect(readInstanceInfo(dataDir)).toEqual({
    pid: process.pid,
    hostname: hostname(),
    startedAt: next.instance.info.startedAt,
    apiAddress: `127.0.0.1:${next.api.port}`,
    adsAddress: `127.0.0.1:${next.xds.port}`,
  });
  await eventually(async () => expect(await next.manager.list('Dataplane')).toEqual([]));
}

/**
 * Whether `pid` is a zombie on Linux: its main thread has exited (state `Z` in /proc) and so have
 * all its other threads (the last one out closes the process's files), but its parent has not reaped it.
 */
function isZombie(pid: number): boolean {
  const state = /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))![1];
  return state === 'Z' && readdirSync(`/proc/${pid}/task`).length === 1;
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
        `data directory ${dataDir} is in use by meshdesk (pid ${process.pid}) serving the API on 127.0.0.1:${first.api.port} and ADS on 127.0.0.1:${first.xds.port}; stop it or choose another --data-dir\n`,
      );
      expect(await first.manager.list('Dataplane')).toEqual(dataplanesBefore);
      expect(first.xds.statusTracker.status('default.backend-1')?.online).toBe(true);
      expect(first.xds.statusTracker.status('default.frontend-1')?.online).toBe(true);
      expect(snapshotEndpoints(first, 'default.frontend-1', 'backend')).toEqual([18080]);
      // The instance file is still the first one's.
      expect(readInstanceInfo(dataDir)).toEqual(first.instance.info);
    });
  }

  it('a second core in the same process is refused too, and the directory is free again once the first closes', async () => {
    const dataDir = tempDir();
    const first = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
    await expect(startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 })).rejects.toThrow(/is in use by meshdesk \(pid \d+\) serving the API/);
    await first.close();
    expect(existsSync(join(dataDir, INSTANCE_FILE))).toBe(false);
    const second = await startTestCore(dataDir);
    expect(second.instance.takenOver).toBeUndefined();
  });

  it('takes the directory over from a meshdesk that died, and only then adopts its leftover Dataplanes', async () => {
    const dataDir = await directoryWithLeftover();
    await expectTakenOver(dataDir, staleInstanceFile(dataDir, deadPid()));
  });

  it('takes the directory over when the pid its file names now belongs to another program', async () => {
    const dataDir = await directoryWithLeftover();
    // After a crash and a reboot, the pid is some other program's: a live process that is not meshdesk.
    const other = spawn('sleep', ['1000']);
    onTestFinished(() => void other.kill('SIGKILL'));
    await expectTakenOver(dataDir, staleInstanceFile(dataDir, other.pid!));
    expect(other.exitCode).toBeNull();
  });

  it('takes the directory over from a killed meshdesk whose parent has not reaped it (a zombie)', async () => {
    const dataDir = await directoryWithLeftover();
    // The shell starts meshdesk in the background, then becomes `sleep`, which never waits for its children.
    const parent = spawn('sh', ['-c', '"$0" "$1" --data-dir "$2" --api-port 0 --ads-port 0 >/dev/null 2>&1 & exec sleep 1000', process.execPath, await headlessBundle(), dataDir]);
    onTestFinished(() => void parent.kill('SIGKILL'));
    const owner = await eventually(() => {
      const info = readInstanceInfo(dataDir);
      expect(info?.apiAddress).toBeDefined();
      return info!;
    });
    process.kill(owner.pid, 'SIGKILL');
    await eventually(() => expect(isZombie(owner.pid)).toBe(true));

    await expectTakenOver(dataDir, owner);
    expect(isZombie(owner.pid)).toBe(true);
  });

  it('a killed meshdesk lets the next start proceed at once', async () => {
    const dataDir = await directoryWithLeftover();
    const killed = await startHeadless(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    const owner = readInstanceInfo(dataDir)!;
    expect(owner.pid).toBe(killed.child.pid);
    expect(await killed.stop('SIGKILL')).toBeNull();
    await expectTakenOver(dataDir, owner);
  });

  it('deleting the instance file while a meshdesk runs does not let a second one start, nor touch its Dataplanes', async () => {
    const dataDir = tempDir();
    const first = await startTestCore(dataDir);
    first.settings.update({ 'xds.dataplaneDeregistrationDelay': '0s', 'xds.postCreateStrategy': 'invalidate' });
    const backend = connectProxy(first, backendDataplane('backend-1', 18080, 'backend'));
    backend.send(CLUSTER_TYPE_URL);
    backend.ack(await backend.next());
    const dataplanesBefore = await first.manager.list('Dataplane');
    expect(dataplanesBefore).toHaveLength(1);

    unlinkSync(join(dataDir, INSTANCE_FILE));
    // The running meshdesk writes it again, so a refused start can still say where it serves.
    await eventually(() => expect(readInstanceInfo(dataDir)).toEqual(first.instance.info));
    const { code, output } = await runHeadlessExpectingFailure(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);

    expect(code).toBe(1);
    expect(output).toContain(
      `data directory ${dataDir} is in use by meshdesk (pid ${process.pid}) serving the API on 127.0.0.1:${first.api.port} and ADS on 127.0.0.1:${first.xds.port}; stop it or choose another --data-dir\n`,
    );
    expect(await first.manager.list('Dataplane')).toEqual(dataplanesBefore);
    expect(first.xds.statusTracker.status('default.backend-1')?.online).toBe(true);
    expect(readInstanceInfo(dataDir)).toEqual(first.instance.info);
  });

  it('is refused while another program holds the database, saying so, whatever a stale instance file names', async () => {
    const dataDir = await directoryWithLeftover();
    staleInstanceFile(dataDir, deadPid());
    // A program that opened the database alone, as a running meshdesk does.
    const other = new Database(join(dataDir, DATABASE_FILE));
    other.pragma('locking_mode = EXCLUSIVE');
    other.pragma('journal_mode = WAL');
    onTestFinished(() => void other.close());
    const rows = databaseRows(other);

    await expect(startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 })).rejects.toThrow(
      `data directory ${dataDir} is in use by another process that holds its database ${join(dataDir, DATABASE_FILE)}; stop it or choose another --data-dir`,
    );
    expect(databaseRows(other)).toEqual(rows);
  });

  it('an instance file it cannot read is no lock: the start proceeds and replaces it', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, INSTANCE_FILE), 'not an instance file');
    const core = await startTestCore(dataDir);
    expect(core.instance.takenOver).toBeUndefined();
    expect(readInstanceInfo(dataDir)).toEqual(core.instance.info);
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
    expect(existsSync(join(dataDir, INSTANCE_FILE))).toBe(false);
  });
});
