import { status } from '@grpc/grpc-js';
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FirstConfigBody, ProxyStatus, ProxyTimelineBody } from '../../src/shared/api-types.js';
import { DATABASE_FILE } from '../../src/main/core.js';
import { inboundPortOf, nodeWithDataplane, universalDataplane } from '../../src/main/xds/callbacks/testing/control-plane.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { eventually } from '../support/eventually.js';
import { headlessBundle } from '../support/headless-process.js';
import { putResource } from '../support/put-resource.js';
import { tempDir } from '../support/temp-dir.js';
import { ControlPlaneProcess } from './support/control-plane-process.js';

/**
 * Issue 23.3: what meshdesk knew about proxies outlives a restart of the real headless control
 * plane, stopped gracefully or killed: the proxy list (live, refused, departed), each proxy's
 * timeline and first configs, shown as from before the restart; then the retention removes them,
 * for good.
 */

const LIVE = 'default.api-web';
const REFUSED = 'default.bad';
const DEPARTED = 'default.ghost';

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

async function proxies(apiUrl: string): Promise<Map<string, ProxyStatus>> {
  const { items } = await getJson<{ items: ProxyStatus[] }>(`${apiUrl}/proxies`);
  return new Map(items.map((item) => [item.proxyId, item]));
}

const detail = (apiUrl: string, proxyId: string, what: string) => `${apiUrl}/meshes/default/dataplanes/${proxyId.slice('default.'.length)}/${what}`;

/** The proxy ids stored with their events, read from a copy of the files (no lock on the running process's database). */
function storedProxyIds(dataDir: string): string[] {
  return storedIds(
    dataDir,
    `SELECT DISTINCT r.proxy_id FROM proxy_records r JOIN proxy_connections c ON c.proxy_id = r.proxy_id
     JOIN proxy_events e ON e.connection_id = c.id WHERE e.event LIKE '%"stream-closed"%' OR e.event LIKE '%"ack"%' ORDER BY 1`,
  );
}

/** Every proxy id with any row of its own in the records' tables. */
function anyRecordIds(dataDir: string): string[] {
  return storedIds(dataDir, 'SELECT proxy_id FROM proxy_records UNION SELECT proxy_id FROM proxy_connections ORDER BY 1');
}

function storedIds(dataDir: string, query: string): string[] {
  const scratch = mkdtempSync(join(tmpdir(), 'meshdesk-records-'));
  try {
    for (const suffix of ['', '-wal']) {
      const file = join(dataDir, DATABASE_FILE + suffix);
      if (existsSync(file)) copyFileSync(file, join(scratch, DATABASE_FILE + suffix));
    }
    const db = new Database(join(scratch, DATABASE_FILE));
    try {
      return db.prepare(query).pluck().all() as string[];
    } finally {
      db.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Three proxies: one API-created and configured (left connected), one refused, one without a Dataplane that left. */
async function makeStories(apiUrl: string, adsPort: number): Promise<RawAdsClient> {
  await putResource(apiUrl, '/settings', { 'xds.postCreateStrategy': 'invalidate' });
  await putResource(apiUrl, '/meshes/default/dataplanes/api-web', universalDataplane('default', 'api-web', 'web', inboundPortOf('default', 'api-web')));
  const live = new RawAdsClient(adsPort, { id: LIVE });
  live.send(CLUSTER_TYPE_URL);
  live.ack(await live.next());

  const badDataplane = { ...universalDataplane('default', 'bad'), networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: {} }] } };
  const refused = new RawAdsClient(adsPort, nodeWithDataplane(REFUSED, badDataplane));
  refused.send(CLUSTER_TYPE_URL);
  expect((await refused.status).code).toBe(status.INVALID_ARGUMENT);
  refused.close();

  const ghost = new RawAdsClient(adsPort, { id: DEPARTED });
  ghost.send(CLUSTER_TYPE_URL);
  await eventually(async () => expect((await proxies(apiUrl)).get(DEPARTED)?.state).toBe('no-dataplane'));
  ghost.close();
  await ghost.status;
  await eventually(async () => {
    const listed = await proxies(apiUrl);
    expect(listed.get(DEPARTED)?.departure).toBeDefined();
    expect(listed.get(LIVE)?.state).toBe('configured');
  });
  return live;
}

describe('proxy records across restarts', () => {
  for (const ending of ['graceful stop', 'kill -9'] as const) {
    it(`keeps timelines, first configs, refused and departed proxies over a ${ending}, until their retention ends`, { timeout: 180_000 }, async () => {
      const bundle = await headlessBundle();
      const dataDir = tempDir();
      const first = new ControlPlaneProcess(bundle, dataDir);
      const { apiUrl, adsPort } = await first.ready;
      const live = await makeStories(apiUrl, adsPort);
      const before = await proxies(apiUrl);
      const departedAt = before.get(DEPARTED)!.departure!.at;
      if (ending === 'kill -9') {
        // Records are written once a second: wait until this second's are, then kill.
        await eventually(() => expect(storedProxyIds(dataDir)).toEqual([LIVE, REFUSED, DEPARTED].sort()));
        await first.crash();
      } else {
        expect(await first.stop('SIGTERM')).toBe(0);
      }
      live.close();

      const second = new ControlPlaneProcess(bundle, dataDir);
      const restarted = await second.ready;
      const after = await proxies(restarted.apiUrl);
      for (const proxyId of [LIVE, REFUSED, DEPARTED]) {
        expect(after.get(proxyId)?.beforeRestart?.restartedAt, proxyId).toBeGreaterThan(departedAt);
        expect(after.get(proxyId)?.online, proxyId).toBe(false);
      }
      expect(after.get(LIVE)).toMatchObject({ state: 'offline', connections: 1 });
      expect(after.get(LIVE)?.departure).toBeUndefined(); // its Dataplane is the API's: it stays
      expect(after.get(REFUSED)).toMatchObject({ state: 'refused', refusal: { codeName: 'INVALID_ARGUMENT' } });
      expect(after.get(REFUSED)?.departure).toBeDefined();
      // The retention counts from the departure, not from the restart.
      expect(after.get(DEPARTED)?.departure?.at).toBe(departedAt);

      const timeline = await getJson<ProxyTimelineBody>(detail(restarted.apiUrl, LIVE, '_timeline'));
      const kinds = timeline.events.map((event) => event.kind);
      expect(kinds.slice(0, 1)).toEqual(['stream-opened']);
      expect(kinds).toContain('ack');
      expect(kinds.at(-1)).toBe('restarted');
      const firstConfig = await getJson<FirstConfigBody>(detail(restarted.apiUrl, LIVE, '_first-config'));
      expect(firstConfig).toMatchObject({ open: false, total: { complete: true }, beforeRestart: { restartedAt: after.get(LIVE)!.beforeRestart!.restartedAt } });
      const refusedConfig = await getJson<FirstConfigBody>(detail(restarted.apiUrl, REFUSED, '_first-config'));
      expect(refusedConfig.ending).toMatchObject({ by: 'control-plane', codeName: 'INVALID_ARGUMENT' });
      expect((await getJson<ProxyTimelineBody>(detail(restarted.apiUrl, DEPARTED, '_timeline'))).departure?.at).toBe(departedAt);

      // A short retention removes the departed and the refused proxy, and the restart after does not bring them back.
      await putResource(restarted.apiUrl, '/settings', { 'xds.departedProxyRetention': '1s' });
      await eventually(async () => {
        const listed = await proxies(restarted.apiUrl);
        expect([...listed.keys()]).toEqual([LIVE]);
      });
      expect((await fetch(detail(restarted.apiUrl, DEPARTED, '_timeline'))).status).toBe(404);
      expect((await fetch(detail(restarted.apiUrl, REFUSED, '_first-config'))).status).toBe(404);
      expect(await second.stop('SIGTERM')).toBe(0);
      // Deleted from the database too, not only forgotten by the process.
      expect(anyRecordIds(dataDir)).toEqual([LIVE]);

      const third = new ControlPlaneProcess(bundle, dataDir);
      const again = await third.ready;
      expect([...(await proxies(again.apiUrl)).keys()]).toEqual([LIVE]);
      expect((await fetch(detail(again.apiUrl, DEPARTED, '_timeline'))).status).toBe(404);
      expect(await third.stop('SIGTERM')).toBe(0);
    });
  }
});
