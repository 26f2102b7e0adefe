import { status, type StatusObject } from '@grpc/grpc-js';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/main/core.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../../src/main/xds/callbacks/dataplane-lifecycle.js';
import { inboundPortOf, nodeWithDataplane, universalDataplane } from '../../src/main/xds/callbacks/testing/control-plane.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import type { Node } from '../../src/main/xds/protocol/ads-service.js';
import { eventually } from '../support/eventually.js';
import { putResource } from '../support/put-resource.js';
import { tempDir } from '../support/temp-dir.js';
import { AcknowledgedWrites } from './support/acknowledged-writes.js';
import { headlessBundle } from '../support/headless-process.js';
import { ControlPlaneProcess } from './support/control-plane-process.js';
import { inspectDatabase, resourceId } from './support/database-check.js';
import { LONG_RUN, seededRandom, type Random } from './support/seeded-random.js';
import { WriteStream } from './support/write-stream.js';

/**
 * Issue 7.8: SIGTERM the real headless control plane while proxies are connected and API writes
 * are in flight. Every stream ends with UNAVAILABLE, the process exits 0, every acknowledged write
 * is stored, the Dataplanes proxies registered are deleted (their proxies register again when they
 * reconnect) while API-created ones stay, and the next start finds a checkpointed, sound database.
 */

const API_ONLY = ['api-only-0', 'api-only-1'];
/** Created via the API, then its proxy connects bringing the same Dataplane in metadata: it stays the API's. */
const API_WITH_METADATA_PROXY = 'api-with-metadata-proxy';
/** Created via the API, its proxy connects without metadata. */
const API_WITH_PLAIN_PROXY = 'api-with-plain-proxy';
const REGISTERED_LIVE = ['registered-0', 'registered-1', 'registered-2'];
/** Registered by its proxy, which left before the shutdown: its deregistration was still pending. */
const REGISTERED_LEFT = 'registered-left';
/** Registered by its proxy, which was still in its post-create wait at the shutdown. */
const REGISTERED_WAITING = 'registered-waiting';

/** Connects like Envoy (CDS wildcard), ACKs the first configuration and keeps the stream open. */
async function connect(adsPort: number, node: Node): Promise<RawAdsClient> {
  const client = new RawAdsClient(adsPort, node);
  client.send(CLUSTER_TYPE_URL);
  client.ack(await client.next());
  return client;
}

/**
 * Short run: 3 stops. `MESHDESK_LONG=1`: 50. Timeouts and deadlines here only bound a hung run:
 * on a saturated 2-core box a start alone can take 15 s.
 */
const STOPS = Number(process.env.MESHDESK_STOPS ?? (LONG_RUN ? 50 : 3));

/**
 * Proxies that come and go while the control plane stops, with a deregistration delay of a few
 * milliseconds, so that deregistration timers fire around the shutdown.
 */
async function comeAndGo(adsPort: number, random: Random, stopped: () => boolean): Promise<void> {
  for (let round = 0; !stopped(); round++) {
    const name = `passing-${round % 3}`;
    const client = new RawAdsClient(adsPort, nodeWithDataplane(`default.${name}`, universalDataplane('default', name, 'backend', inboundPortOf('default', name))));
    client.send(CLUSTER_TYPE_URL);
    await Promise.race([client.next(), client.status]);
    await new Promise((resolve) => setTimeout(resolve, random.int(0, 20)));
    client.close();
    await client.status;
  }
}

function dataplaneNames(stored: ReturnType<typeof inspectDatabase>): string[] {
  return [...stored.resources.values()].filter((resource) => resource.type === 'Dataplane').map((resource) => resource.name).sort();
}

describe('graceful shutdown', () => {
  it('ends live streams with UNAVAILABLE, keeps acknowledged writes, deletes proxy-registered Dataplanes and restarts clean', { timeout: 180_000 }, async () => {
    const bundle = await headlessBundle();
    const dataDir = tempDir();
    const random = seededRandom();
    const first = new ControlPlaneProcess(bundle, dataDir);
    const { apiUrl, adsPort } = await first.ready;

    await putResource(apiUrl, '/settings', { 'xds.postCreateStrategy': 'invalidate', 'xds.dataplaneDeregistrationDelay': '1h' });
    for (const name of [...API_ONLY, API_WITH_METADATA_PROXY, API_WITH_PLAIN_PROXY]) {
      await putResource(apiUrl, `/meshes/default/dataplanes/${name}`, universalDataplane('default', name, 'backend', inboundPortOf('default', name)));
    }
    const clients = [
      await connect(adsPort, nodeWithDataplane(`default.${API_WITH_METADATA_PROXY}`, universalDataplane('default', API_WITH_METADATA_PROXY, 'backend', inboundPortOf('default', API_WITH_METADATA_PROXY)))),
      await connect(adsPort, { id: `default.${API_WITH_PLAIN_PROXY}` }),
      ...(await Promise.all(REGISTERED_LIVE.map((name) => connect(adsPort, nodeWithDataplane(`default.${name}`, universalDataplane('default', name, 'backend', inboundPortOf('default', name))))))),
    ];
    const left = await connect(adsPort, nodeWithDataplane(`default.${REGISTERED_LEFT}`, universalDataplane('default', REGISTERED_LEFT, 'backend', inboundPortOf('default', REGISTERED_LEFT))));
    left.close();
    await left.status;

    // A proxy caught in its post-create wait (strategy sleep, one long cache expiration): registered, not yet configured.
    await putResource(apiUrl, '/settings', { 'xds.postCreateStrategy': 'sleep', 'store.cache.expirationTime': '1h' });
    const waiting = new RawAdsClient(adsPort, nodeWithDataplane(`default.${REGISTERED_WAITING}`, universalDataplane('default', REGISTERED_WAITING, 'backend', inboundPortOf('default', REGISTERED_WAITING))));
    waiting.send(CLUSTER_TYPE_URL);
    clients.push(waiting);
    await eventually(async () => expect((await fetch(`${apiUrl}/meshes/default/dataplanes/${REGISTERED_WAITING}`)).status).toBe(200), { deadlineMs: 60_000 });

    // Writes in flight when the signal comes: stop once some were acknowledged.
    const ledger = new AcknowledgedWrites();
    const writes = new WriteStream({ apiUrl, adsPort, ledger, random, registerProxies: false });
    await eventually(() => expect(ledger.acknowledged.resources).toBeGreaterThanOrEqual(10), { everyMs: 5, deadlineMs: 60_000 });
    const exitCode = await first.stop('SIGTERM');
    await writes.finished();
    const statuses: StatusObject[] = await Promise.all(clients.map((client) => client.status));
    for (const client of clients) client.close();

    expect(exitCode, first.output()).toBe(0);
    // Nothing failed on the way down: no write cut off by the closed database, no deregistration that could not run.
    expect(first.output()).not.toMatch(/failed|cannot|error/i);
    expect(statuses.map((each) => each.code)).toEqual(clients.map(() => status.UNAVAILABLE));
    expect(writes.unexpected).toEqual([]);

    // A clean close checkpoints the WAL into the database and removes it.
    const wal = join(dataDir, `${DATABASE_FILE}-wal`);
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    const stored = inspectDatabase(join(dataDir, DATABASE_FILE));
    expect(ledger.problems(stored)).toEqual([]);
    const names = dataplaneNames(stored);
    for (const name of [...REGISTERED_LIVE, REGISTERED_LEFT, REGISTERED_WAITING]) expect(names).not.toContain(name);
    for (const name of [...API_ONLY, API_WITH_METADATA_PROXY, API_WITH_PLAIN_PROXY]) expect(names).toContain(name);
    expect(stored.resources.get(resourceId('Dataplane', 'default', API_WITH_METADATA_PROXY))?.labels[ORIGIN_LABEL]).not.toBe(PROXY_ORIGIN);

    // The next start is clean and serves exactly what was stored.
    const second = new ControlPlaneProcess(bundle, dataDir);
    const restarted = await second.ready;
    try {
      const listed = (await (await fetch(`${restarted.apiUrl}/meshes/default/dataplanes`)).json()) as { items: Array<{ name: string }> };
      expect(listed.items.map((item) => item.name).sort()).toEqual(names);
      const settings = (await (await fetch(`${restarted.apiUrl}/settings`)).json()) as Record<string, unknown>;
      expect(settings).toMatchObject({ 'xds.dataplaneDeregistrationDelay': '1h', 'xds.postCreateStrategy': 'sleep' });
    } finally {
      expect(await second.stop('SIGINT')).toBe(0);
    }
    console.log(
      `graceful shutdown: ${clients.length} live streams ended UNAVAILABLE, ${ledger.acknowledged.resources} resource and ` +
        `${ledger.acknowledged.settings} settings writes acknowledged and stored, ${REGISTERED_LIVE.length + 2} proxy-registered Dataplanes deleted, ` +
        `${API_ONLY.length + 2} API-created kept; seed ${random.seed}`,
    );
  });

  it(`stops cleanly ${STOPS} times at random points of a write and registration stream`, { timeout: STOPS * 60_000 }, async () => {
    const bundle = await headlessBundle();
    const dataDir = tempDir();
    const random = seededRandom();
    const ledger = new AcknowledgedWrites();
    let streamsEnded = 0;
    let storedButUnanswered = 0;

    for (let stop = 1; stop <= STOPS; stop++) {
      const controlPlane = new ControlPlaneProcess(bundle, dataDir);
      const { apiUrl, adsPort } = await controlPlane.ready;
      if (stop === 1) {
        await putResource(apiUrl, '/settings', { 'xds.postCreateStrategy': 'invalidate', 'xds.dataplaneDeregistrationDelay': `${random.int(0, 30)}ms` });
      }
      const writes = new WriteStream({ apiUrl, adsPort, ledger, random });
      let stopping = false;
      const passing = comeAndGo(adsPort, random, () => stopping);
      await new Promise((resolve) => setTimeout(resolve, random.int(50, 1000)));
      stopping = true;
      const exitCode = await controlPlane.stop('SIGTERM');
      await Promise.all([writes.finished(), passing]);

      expect(exitCode, controlPlane.output()).toBe(0);
      expect(controlPlane.output()).not.toMatch(/failed|cannot|error/i);
      expect(writes.unexpected).toEqual([]);
      const wal = join(dataDir, `${DATABASE_FILE}-wal`);
      expect(existsSync(wal) ? statSync(wal).size : 0, `WAL after stop ${stop}`).toBe(0);
      const stored = inspectDatabase(join(dataDir, DATABASE_FILE));
      // The proxies' Dataplanes went with the shutdown; everything acknowledged via the API stayed.
      ledger.forgetRegistrations();
      expect(ledger.problems(stored), `after stop ${stop} (seed ${random.seed})`).toEqual([]);
      const leftBehind = [...stored.resources.values()].filter((resource) => resource.labels[ORIGIN_LABEL] === PROXY_ORIGIN);
      expect(leftBehind.map((resource) => resource.name), `after stop ${stop} (seed ${random.seed})`).toEqual([]);
      storedButUnanswered += ledger.storedButUnanswered(stored);
      ledger.adopt(stored);
      streamsEnded += 1;
    }
    console.log(
      `graceful shutdown: ${streamsEnded} SIGTERMs at random points; acknowledged and checked: ${ledger.acknowledged.resources} resource PUTs, ` +
        `${ledger.acknowledged.settings} settings PUTs, ${ledger.acknowledged.registrations} registrations (deleted at each stop); ` +
        `${storedButUnanswered} writes cut off by the stop were stored but never answered; seed ${random.seed}`,
    );
  });
});
