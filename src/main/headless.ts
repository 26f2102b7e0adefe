// `npm run headless`: the control plane without Electron, for remote dev boxes, WSL and CI.
import { HEADLESS_USAGE, parseCoreOptions, wantsHelp } from './core-options.js';
import { proxyStateLine } from './xds/status/proxy-state-line.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    console.log(HEADLESS_USAGE);
    return;
  }
  const options = parseCoreOptions(argv);
  // Loaded after the command line is checked: help and usage errors answer without loading the core.
  const { startCore } = await import('./core.js');
  const core = await startCore(options);
  console.log(`meshdesk data directory: ${core.dataDir}`);
  const stale = core.instance.takenOver;
  if (stale) console.log(`meshdesk took the data directory over from meshdesk pid ${stale.pid} (started ${stale.startedAt}), which is gone`);
  console.log(`meshdesk API listening on ${core.api.url}`);
  console.log(`meshdesk ADS (xDS) listening on ${options.host}:${core.xds.port}`);
  console.log(`meshdesk UI: ${core.api.url}/gui/`);
  core.xds.statusTracker.onStateChange((status) => console.log(proxyStateLine(status)));

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`meshdesk stopping (${signal})`);
    core.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('meshdesk did not stop cleanly:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`meshdesk: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
