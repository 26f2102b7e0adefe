import { ControlPlaneApi } from '../../tools/load/control-plane-api.js';
import { Fleet, moveProbe, serviceName } from '../../tools/load/fleet.js';
import { startMeshdesk, type MeshdeskProcess } from '../../tools/load/meshdesk-process.js';
import { cpuPercent, readProcessUsage } from '../../tools/load/process-usage.js';
import { median, percentile } from '../../tools/load/stats.js';
import type { BenchOptions, BenchRow } from '../measure.js';

const PROXIES = 1000;
const SERVICES = 10;
const SETTINGS = {
  'xds.postCreateStrategy': 'invalidate',
  'store.cache.expirationTime': '1s',
  'xds.dataplaneConfigurationRefreshInterval': '1s',
};

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function withMeshdesk<T>(run: (meshdesk: MeshdeskProcess, api: ControlPlaneApi, fleet: Fleet) => Promise<T>): Promise<T> {
  const meshdesk = await startMeshdesk(process.env.MESHDESK_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.MESHDESK_BENCH_PROFILE}`] : []);
  const api = new ControlPlaneApi(meshdesk.apiUrl);
  const fleet = new Fleet({ ads: meshdesk.ads, services: SERVICES });
  try {
    await api.updateSettings(SETTINGS);
    return await run(meshdesk, api, fleet);
  } finally {
    fleet.close();
    await meshdesk.stop();
  }
}

/**
 * 1000 simulated proxies (this process) against a headless meshdesk (its own process), strategy
 * invalidate, TTL and refresh 1 s: the storm of connections, idle CPU, memory per proxy and
 * convergence after an endpoint change; then a ramp 10 → 100 → 1000 for the growth table.
 */
export async function fleet(options: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  await withMeshdesk(async (meshdesk, api, fleet) => {
    const probeService = serviceName(0);
    await moveProbe(api, probeService, 0);
    await pause(2_000); // past the start-up work, so the baseline is the idle process
    const empty = readProcessUsage(meshdesk.pid);
    await api.eventLoopLagP99Ms(); // a fresh lag window
    const stormStart = performance.now();
    const times = await fleet.connect(PROXIES);
    const stormMs = performance.now() - stormStart;
    const lag = await api.eventLoopLagP99Ms();
    rows.push(
      { benchmark: `storm: ${PROXIES} proxies at once → all configured`, value: stormMs, unit: 'ms', note: 'target ≤ 5000 ms' },
      { benchmark: 'storm: time to first config, median', value: median(times), unit: 'ms' },
      { benchmark: 'storm: control-plane event-loop lag p99', value: lag, unit: 'ms', note: 'target ≤ 100 ms' },
    );

    const rounds = options.quick ? 3 : 10;
    const convergence: number[] = [];
    await pause(2_000);
    for (let round = 1; round <= rounds; round++) {
      convergence.push(...(await fleet.convergence(probeService, () => moveProbe(api, probeService, round))));
      await pause(300); // rounds start at different points of the refresh interval
    }
    const subscribers = fleet.subscribersOf(probeService).length;
    rows.push(
      { benchmark: 'convergence: endpoints changed → all ACKed, p50', value: median(convergence), unit: 'ms', note: `${rounds} changes × ${subscribers} subscribers` },
      { benchmark: 'convergence: endpoints changed → all ACKed, p99', value: percentile(convergence, 99), unit: 'ms', note: 'target ≤ 1200 ms' },
    );

    const idleSeconds = options.quick ? 10 : 60;
    await pause(3_000);
    const idleFrom = readProcessUsage(meshdesk.pid);
    await pause(idleSeconds * 1000);
    const idleTo = readProcessUsage(meshdesk.pid);
    rows.push(
      { benchmark: `idle: ${PROXIES} proxies, ${idleSeconds} s, control-plane CPU`, value: cpuPercent(idleFrom, idleTo), unit: '% core', note: 'target ≤ 10 %' },
      { benchmark: `memory: RSS with 0 → ${PROXIES} proxies`, value: (idleTo.rssBytes - empty.rssBytes) / 1024 / 1024, unit: 'MB' },
      { benchmark: 'memory: RSS per connected proxy', value: (idleTo.rssBytes - empty.rssBytes) / PROXIES / 1024, unit: 'KB', note: 'target ≤ 256 KB' },
    );
  });

  await withMeshdesk(async (meshdesk, api, fleet) => {
    await pause(2_000);
    const empty = readProcessUsage(meshdesk.pid);
    for (const size of [10, 100, 1000]) {
      const before = await api.generationTotals('changed');
      await fleet.connect(size - fleet.proxies.length);
      await pause(3_000); // let every proxy's follow-up ticks run
      const after = await api.generationTotals('changed');
      const usage = readProcessUsage(meshdesk.pid);
      const perTick = ((after.seconds - before.seconds) / Math.max(1, after.count - before.count)) * 1000;
      rows.push(
        { benchmark: `growth: ${size} proxies (ramp), mean changed tick`, value: perTick, unit: 'ms', note: `${after.count - before.count} ticks` },
        { benchmark: `growth: ${size} proxies (ramp), RSS above empty`, value: (usage.rssBytes - empty.rssBytes) / 1024 / 1024, unit: 'MB' },
      );
    }
  });
  return rows;
}
