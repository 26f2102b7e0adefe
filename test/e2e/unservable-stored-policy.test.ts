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
import { putResource } from '../support/put-resource.js';
import { tempDir } from '../support/temp-dir.js';

const limits = (maxConnections: number) => ({ to: [{ targetRef: { kind: 'Mesh' }, default: { connectionLimits: { maxConnections } } }] });

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
    // What an older meshdesk left in its database: the policy it accepted, then a start of this one.
    const dataDir = tempDir();
    const older = await startTestCore(dataDir);
    await applyDataplane(older, backendDataplane('echo-1', 18080));
    for (const name of ['web-1', 'web-2']) await applyDataplane(older, clientDataplane(name));
    // The mesh's default circuit breaker would set the same field over it.
    expect((await fetch(`${older.api.url}/meshes/default/meshcircuitbreakers/mesh-circuit-breaker-all-default`, { method: 'DELETE' })).status).toBe(200);
    await putResource(older.api.url, '/meshes/default/meshcircuitbreakers/old', { type: 'MeshCircuitBreaker', mesh: 'default', name: 'old', spec: limits(2000) });
    await older.close();
    const database = new Database(join(dataDir, DATABASE_FILE));
    const stored = database.prepare("SELECT spec FROM resources WHERE type = 'MeshCircuitBreaker' AND name = 'old'").get() as { spec: string };
    const changed = database.prepare("UPDATE resources SET spec = ? WHERE type = 'MeshCircuitBreaker' AND name = 'old'").run(stored.spec.replace('2000', String(2 ** 32)));
    expect(changed.changes).toBe(1);
    database.close();
    const core = await startTestCore(dataDir);
    core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });

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
        key: { type: 'MeshCircuitBreaker', mesh: 'default', name: 'old' },
        reason: expect.stringContaining('spec.to[0].default.connectionLimits.maxConnections: must be in inclusive range [0, 4294967295]'),
      },
    ]);
  });
});
