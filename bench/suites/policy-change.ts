import { decodeResource } from '../../src/main/xds/protocol/decode.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import type { DiscoveryResponse } from '../../src/main/xds/protocol/ads-service.js';
import { ControlPlaneApi } from '../../tools/load/control-plane-api.js';
import { Fleet } from '../../tools/load/fleet.js';
import { startMeshdesk } from '../../tools/load/meshdesk-process.js';
import { median } from '../../tools/load/stats.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const PROXIES = 100;
const SERVICES = 10;
const REFRESH_INTERVAL_MS = 1000;

/** A MeshTimeout for the whole mesh whose connection timeout marks the round: every outbound cluster shows it. */
function timeoutPolicy(seconds: number) {
  return {
    type: 'MeshTimeout',
    mesh: 'default',
    name: 'bench-change',
    spec: { targetRef: { kind: 'Mesh' }, to: [{ targetRef: { kind: 'Mesh' }, default: { connectionTimeout: `${seconds}s` } }] },
  };
}

/** Whether a CDS response carries the round's connection timeout on any cluster. */
function hasTimeout(response: DiscoveryResponse, seconds: number): boolean {
  return response.type_url === CLUSTER_TYPE_URL && response.resources.some((any) => decodeResource(any)['connect_timeout'] === `${seconds}s`);
}

/**
 * One policy change reaching 100 connected proxies: a headless meshdesk in its own process, 100
 * Envoy-like ADS streams, one MeshTimeout written through the API; the time from the PUT until
 * every proxy has ACKed a CDS response with the new timeout, against the refresh interval + 200 ms.
 */
export async function policyChange(options: BenchOptions): Promise<BenchRow[]> {
  const meshdesk = await startMeshdesk();
  const fleet = new Fleet({ ads: meshdesk.ads, services: SERVICES });
  try {
    const api = new ControlPlaneApi(meshdesk.apiUrl);
    await api.updateSettings({ 'xds.dataplaneConfigurationRefreshInterval': `${REFRESH_INTERVAL_MS}ms` });
    await fleet.connect(PROXIES);
    const times: number[] = [];
    for (let round = 0; round < (options.quick ? 3 : 7); round++) {
      const seconds = 10 + round;
      const configured: number[] = [];
      const startedAt = performance.now();
      const all = Promise.all(
        fleet.proxies.map(
          (proxy) =>
            new Promise<void>((resolve) => {
              const stop = proxy.watch((response) => {
                if (!hasTimeout(response, seconds)) return;
                configured.push(performance.now() - startedAt);
                stop();
                resolve();
              });
            }),
        ),
      );
      await api.putPolicy(timeoutPolicy(seconds));
      await all;
      times.push(Math.max(...configured));
    }
    const target = REFRESH_INTERVAL_MS + 200;
    return [
      {
        benchmark: `one policy change → ${PROXIES} connected proxies ACKed it, median`,
        value: median(times),
        unit: 'ms',
        note: `target ≤ refresh interval + 200 ms = ${target} ms; ${(median(times) / target).toFixed(2)} × target`,
      },
      { benchmark: `one policy change → ${PROXIES} connected proxies ACKed it, worst`, value: Math.max(...times), unit: 'ms' },
    ];
  } finally {
    fleet.close();
    await meshdesk.stop();
  }
}
