// `npm run load -- --proxies N --services M --strategy sleep|invalidate|none [--api URL] [--ads HOST:PORT] [--pid PID] [--duration S]`
// Simulated Envoy proxies against a running meshdesk (or one it starts), in this process, apart from the control plane's.
import { parseArgs } from 'node:util';
import { ControlPlaneApi } from './control-plane-api.js';
import { Fleet, PROBE_DATAPLANE, MESH, moveProbe, serviceName } from './fleet.js';
import { startMeshdesk, type MeshdeskProcess } from './meshdesk-process.js';
import { cpuPercent, readProcessUsage } from './process-usage.js';
import { formatMs, median, percentile } from './stats.js';

const STRATEGIES = ['sleep', 'invalidate', 'none'] as const;
const USAGE = `usage: npm run load -- --proxies N --services M --strategy ${STRATEGIES.join('|')}
  [--api http://127.0.0.1:5681] [--ads 127.0.0.1:5678] [--pid PID] [--duration S] [--rounds R] [--ttl 1s] [--refresh 1s] [--profile DIR]
Without --api, starts a headless meshdesk on a temporary data directory and stops it at the end
(with --profile, under node --cpu-prof, writing its CPU profile to DIR).`;

function options() {
  const { values } = parseArgs({
    options: {
      proxies: { type: 'string', default: '100' },
      services: { type: 'string', default: '10' },
      strategy: { type: 'string', default: 'invalidate' },
      api: { type: 'string' },
      ads: { type: 'string' },
      pid: { type: 'string' },
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '5' },
      ttl: { type: 'string' },
      refresh: { type: 'string' },
      profile: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const count = (name: string, text: string, min: number) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer ≥ ${min}, got "${text}"\n${USAGE}`);
    return value;
  };
  const strategy = values.strategy as (typeof STRATEGIES)[number];
  if (!STRATEGIES.includes(strategy)) throw new Error(`--strategy must be one of ${STRATEGIES.join(', ')}, got "${values.strategy}"\n${USAGE}`);
  return {
    proxies: count('proxies', values.proxies, 1),
    services: count('services', values.services, 2),
    strategy,
    api: values.api,
    ads: values.ads ?? '127.0.0.1:5678',
    pid: values.pid === undefined ? undefined : count('pid', values.pid, 1),
    durationS: count('duration', values.duration, 0),
    rounds: count('rounds', values.rounds, 0),
    ttl: values.ttl,
    refresh: values.refresh,
    profile: values.profile,
  };
}

async function main(): Promise<void> {
  const opts = options();
  let own: MeshdeskProcess | undefined;
  if (!opts.api) {
    own = await startMeshdesk(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${opts.profile}`] : []);
    console.log(`started meshdesk (pid ${own.pid}): API ${own.apiUrl}, ADS ${own.ads}`);
  }
  const api = new ControlPlaneApi(own?.apiUrl ?? opts.api!);
  const ads = own?.ads ?? opts.ads;
  const pid = opts.pid ?? own?.pid ?? (await api.pid());
  if (pid === undefined) throw new Error('cannot tell the meshdesk process id: its GET / has no "pid"; pass --pid');
  const fleet = new Fleet({ ads, services: opts.services });
  try {
    await api.updateSettings({
      'xds.postCreateStrategy': opts.strategy,
      ...(opts.ttl && { 'store.cache.expirationTime': opts.ttl }),
      ...(opts.refresh && { 'xds.dataplaneConfigurationRefreshInterval': opts.refresh }),
    });
    const probeService = serviceName(0);
    await moveProbe(api, probeService, 0);
    const before = readProcessUsage(pid);
    await api.eventLoopLagP99Ms(); // starts a fresh lag window
    console.log(`connecting ${opts.proxies} proxies at once (${opts.services} services, strategy ${opts.strategy}) to ${ads}…`);
    const firstConfig = await fleet.connect(opts.proxies);
    const allConfiguredMs = Math.max(...fleet.proxies.map((proxy) => proxy.configuredAt!)) - Math.min(...fleet.proxies.map((proxy) => proxy.openedAt));
    const lagMs = await api.eventLoopLagP99Ms();
    const connected = readProcessUsage(pid);
    console.log(`time to first config: median ${formatMs(median(firstConfig))}, p99 ${formatMs(percentile(firstConfig, 99))}, max ${formatMs(Math.max(...firstConfig))}`);
    console.log(`all ${opts.proxies} configured after ${formatMs(allConfiguredMs)}; control-plane event-loop lag p99 meanwhile ${formatMs(lagMs)}`);
    console.log(`control plane: ${cpuPercent(before, connected).toFixed(0)} % of a core while connecting, RSS ${mb(before.rssBytes)} → ${mb(connected.rssBytes)} (${kb((connected.rssBytes - before.rssBytes) / opts.proxies)} per proxy)`);

    const convergence: number[] = [];
    for (let round = 1; round <= opts.rounds; round++) {
      convergence.push(...(await fleet.convergence(probeService, () => moveProbe(api, probeService, round))));
    }
    if (opts.rounds > 0) {
      const subscribers = fleet.subscribersOf(probeService).length;
      console.log(`convergence (${opts.rounds} endpoint changes × ${subscribers} subscribers): p50 ${formatMs(median(convergence))}, p99 ${formatMs(percentile(convergence, 99))}`);
    }
    if (opts.durationS > 0) {
      const idleFrom = readProcessUsage(pid);
      await new Promise((resolve) => setTimeout(resolve, opts.durationS * 1000));
      const idleTo = readProcessUsage(pid);
      console.log(`idle for ${opts.durationS} s with ${opts.proxies} proxies: ${cpuPercent(idleFrom, idleTo).toFixed(1)} % of a core, RSS ${mb(idleTo.rssBytes)}`);
    }
  } finally {
    fleet.close();
    await api.deleteDataplane(MESH, PROBE_DATAPLANE).catch(() => {});
    await own?.stop();
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KB`;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`load: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
