// Issue 27: a policy value an older meshdesk stored (it validated then, it cannot be encoded now)
// made every tick of the mesh fail, so no proxy got any update. Real SQLite, real ADS streams.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DATABASE_FILE } from '../../src/main/core.js';
import { decodeResource } from '../../src/main/xds/protocol/decode.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import type { StorageStatus } from '../../src/shared/storage-types.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';
import { putResource } from '../support/put-resource.js';
import { tempDir } from '../support/temp-dir.js';

const timeout = (idleTimeout: string) => ({ to: [{ targetRef: { kind: 'Mesh' }, default: { idleTimeout, connectionTimeout: '2s' } }] });

/** Every endpoint address:port of the EDS responses a proxy gets from now on, newest response last. */
async function endpointsSeen(proxy: RawAdsClient, want: number): Promise<string[]> {
  for (;;) {
    const response = await proxy.next();
    // EDS is not a wildcard type: it is asked for by the names of the clusters CDS sent.
    const clusters = response.type_url === CLUSTER_TYPE_URL ? response.resources.map((any) => String(decodeResource(any).name)) : undefined;
    proxy.ack(response);
    if (clusters) proxy.send(ENDPOINT_TYPE_URL, { names: clusters });
    if (response.type_url !== ENDPOINT_TYPE_URL) continue;
    const addresses = response.resources.flatMap((any) =>
      ((decodeResource(any).endpoints ?? []) as { lb_endpoints?: { endpoint?: { address?: { socket_address?: { port_value?: number } } } }[] }[]).flatMap(
        (locality) => (locality.lb_endpoints ?? []).map((lb) => String(lb.endpoint?.address?.socket_address?.port_value)),
      ),
    );
    if (addresses.length >= want) return addresses.sort();
  }
}

describe('a policy stored by an older meshdesk that no proxy could be sent', () => {
  it("costs no proxy its updates: a new endpoint reaches both, and GET /storage names the policy's field", async () => {
    const dataDir = tempDir();
    const core = await startTestCore(dataDir);
    core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
    await applyDataplane(core, backendDataplane('echo-1', 18080));
    for (const name of ['web-1', 'web-2']) await applyDataplane(core, clientDataplane(name));
    await putResource(core.api.url, '/meshes/default/meshtimeouts/old', { type: 'MeshTimeout', mesh: 'default', name: 'old', spec: timeout('1h') });

    // As an older meshdesk stored it (it accepted this), behind the API's back.
    const other = new Database(join(dataDir, DATABASE_FILE));
    onTestFinished(() => other.close());
    const stored = other.prepare("SELECT spec FROM resources WHERE type = 'MeshTimeout' AND name = 'old'").get() as { spec: string };
    const changed = other.prepare("UPDATE resources SET spec = ? WHERE type = 'MeshTimeout' AND name = 'old'").run(stored.spec.replace('"1h"', '"999999999999h"'));
    expect(changed.changes).toBe(1);

    const proxies = ['web-1', 'web-2'].map((name) => {
      const proxy = new RawAdsClient(core.xds.port, { id: `default.${name}` });
      onTestFinished(() => proxy.close());
      proxy.send(CLUSTER_TYPE_URL);
      return proxy;
    });
    for (const proxy of proxies) expect(await endpointsSeen(proxy, 1)).toEqual(['18080']);

    await applyDataplane(core, backendDataplane('echo-2', 18081));
    for (const proxy of proxies) expect(await endpointsSeen(proxy, 2)).toEqual(['18080', '18081']);

    const storage = (await (await fetch(`${core.api.url}/storage`)).json()) as StorageStatus;
    expect(storage.brokenRows).toEqual([
      {
        table: 'resources',
        key: { type: 'MeshTimeout', mesh: 'default', name: 'old' },
        reason: expect.stringContaining('spec.to[0].default.idleTimeout: time: invalid duration "999999999999h"'),
      },
    ]);
    await eventually(async () => {
      const status = (await (await fetch(`${core.api.url}/meshes/default/dataplanes/web-1/_status`)).json()) as { state: string; stale?: unknown };
      expect(status).toMatchObject({ state: 'configured' });
    });
  });
});
