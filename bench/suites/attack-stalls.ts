import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startCore } from '../../src/main/core.js';
import type { DiscoveryResponse } from '../../src/main/xds/protocol/ads-service.js';
import { CLUSTER_TYPE_URL, LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { largeJsonDataplane, largeYamlDataplane } from '../../test/support/large-bodies.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const NACKS = 5_000;

const put = (api: string, path: string, body: string) => fetch(`${api}${path}`, { method: 'PUT', body }).then((response) => response.text());

const policy = (type: string, name: string, spec: object) => JSON.stringify({ type, mesh: 'default', name, spec });
const timeoutTo = (items: number) =>
  Array.from({ length: items }, (_, index) => ({ targetRef: { kind: 'MeshService', name: `svc-${index}` }, default: { connectionTimeout: '2s' } }));
const routeRules = (rules: number) =>
  Array.from({ length: rules }, (_, index) => ({ matches: [{ path: { type: 'PathPrefix', value: `/p${index}` } }], default: { backendRefs: [{ kind: 'MeshService', name: 'web' }] } }));
const permissionFrom = (keys: number) =>
  Array.from({ length: keys }, (_, index) => ({ targetRef: { kind: 'MeshSubset', tags: { [`k${index}`]: `v${index}` } }, default: { action: 'Allow' } }));

/** The NACKs web-1's status has counted for one type. */
async function nacksOf(api: string, typeUrl: string): Promise<number> {
  const status = (await fetch(`${api}/meshes/default/dataplanes/web-1/_status`).then((response) => response.json())) as { types: { typeUrl: string; counts: { nacks: number } }[] };
  return status.types.find((type) => type.typeUrl === typeUrl)?.counts.nacks ?? 0;
}

/**
 * Issue 27's attacks, one after another, against one core in this process (its event loop is this
 * one): a 250 KB YAML and a 1 MB JSON Dataplane, an 8,000-item MeshTimeout, a 3,000-rule
 * MeshHTTPRoute, a MeshTrafficPermission of 16 MeshSubset items then `_permissions`, and a proxy
 * that sends 5,000 NACKs at once. The row is the longest event-loop stall over all of them
 * (perf_hooks' delay histogram); the note says which attack it was. The bodies are made before
 * the histogram starts, so the client's own work is not counted.
 */
export async function attackStalls(options: BenchOptions): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meshdesk-bench-attacks-'));
  const core = await startCore({ dataDir, host: '127.0.0.1', apiPort: 0, adsPort: 0 });
  const api = core.api.url;
  const bodies = {
    yaml: largeYamlDataplane('big-yaml'),
    json: largeJsonDataplane('big-json'),
    timeout: policy('MeshTimeout', 'many-to', { targetRef: { kind: 'Mesh' }, to: timeoutTo(8_000) }),
    route: policy('MeshHTTPRoute', 'many-rules', { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'MeshService', name: 'web' }, rules: routeRules(3_000) }] }),
    permission: policy('MeshTrafficPermission', 'many-subsets', { targetRef: { kind: 'Mesh' }, from: permissionFrom(16) }),
  };
  const client = new RawAdsClient(core.xds.port, { id: 'default.web-1' });
  try {
    await put(api, '/meshes/default/dataplanes/web-1', JSON.stringify({ type: 'Dataplane', mesh: 'default', name: 'web-1', networking: { address: '127.0.0.1', inbound: [{ port: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }] } }));
    client.send(CLUSTER_TYPE_URL);
    client.send(LISTENER_TYPE_URL);
    const latest: DiscoveryResponse = await client.next();

    const attacks: { name: string; run: () => Promise<unknown> }[] = [
      { name: '250 KB YAML Dataplane', run: () => put(api, '/meshes/default/dataplanes/big-yaml', bodies.yaml) },
      { name: '1 MB JSON Dataplane', run: () => put(api, '/meshes/default/dataplanes/big-json', bodies.json) },
      { name: 'MeshTimeout of 8,000 to items', run: () => put(api, '/meshes/default/meshtimeouts/many-to', bodies.timeout) },
      { name: 'MeshHTTPRoute of 3,000 rules', run: () => put(api, '/meshes/default/meshhttproutes/many-rules', bodies.route) },
      {
        name: 'MeshTrafficPermission of 16 MeshSubset items + _permissions',
        run: async () => {
          await put(api, '/meshes/default/meshtrafficpermissions/many-subsets', bodies.permission);
          await fetch(`${api}/meshes/default/_permissions`).then((response) => response.text());
        },
      },
      {
        name: `${NACKS} NACKs at once`,
        run: async () => {
          for (let nack = 0; nack < NACKS; nack++) client.nack(latest, `rejected ${nack}`);
          // Once the server has sent a newer response, the rest echo a stale nonce and are ignored, uncounted:
          // the flood is over when the count stops moving.
          let seen = -1;
          for (let count = await nacksOf(api, latest.type_url); count !== seen; count = await nacksOf(api, latest.type_url)) {
            seen = count;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        },
      },
    ];
    const rounds = options.quick ? 1 : 3;
    const stalls = new Map<string, number>();
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    for (let round = 0; round < rounds; round++) {
      for (const { name, run } of attacks) {
        histogram.reset();
        histogram.enable();
        await run();
        // What the attack set off after its answer (a snapshot for the connected proxy) is its stall too.
        await new Promise((resolve) => setTimeout(resolve, 300));
        histogram.disable();
        stalls.set(name, Math.max(stalls.get(name) ?? 0, histogram.max / 1e6));
      }
    }
    const [worst, ms] = [...stalls].reduce((a, b) => (b[1] > a[1] ? b : a));
    const each = [...stalls].map(([name, value]) => `${name} ${value.toFixed(0)}`).join(', ');
    return [{ benchmark: 'longest event-loop stall during issue 27 attacks', value: ms, unit: 'ms', note: `worst: ${worst}; each (ms): ${each}` }];
  } finally {
    client.close();
    await core.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
