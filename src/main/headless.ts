// `npm run headless`: the control plane without Electron, for remote dev boxes, WSL and CI.
import { HEADLESS_USAGE, parseCoreOptions, takeDemoFlag, wantsHelp } from './core-options.js';
import { ProxyStateLines } from './xds/status/proxy-state-line.js';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    console.log(HEADLESS_USAGE);
    return;
  }
  const { demo, coreArgs } = takeDemoFlag(argv);
  const options = parseCoreOptions(coreArgs);
  // Loaded after the command line is checked: help and usage errors answer without loading the core.
  const { startCore } = await import('./core.js');
  const core = await startCore(options);
  console.log(`meshdesk data directory: ${core.dataDir}`);
  const stale = core.instance.takenOver;
  if (stale) console.log(`meshdesk took the data directory over from meshdesk pid ${stale.pid} (started ${stale.startedAt}), which is gone`);
  console.log(`meshdesk API listening on ${core.api.url}`);
  console.log(`meshdesk ADS (xDS) listening on ${options.host}:${core.xds.port}`);
  const lines = new ProxyStateLines();
  core.xds.statusTracker.onStateChange((status) => {
    const line = lines.stateChanged(status);
    if (line) console.log(line);
  });
  core.xds.timeline.listen((proxyId, event) => {
    const status = event.kind === 'post-create-wait' ? core.xds.statusTracker.status(proxyId) : undefined;
    if (status && event.kind === 'post-create-wait') console.log(lines.postCreateWaitEnded(status, event));
  });
  if (demo) {
    const started = await core.demo.start();
    console.log(`meshdesk demo mesh "${started.mesh}" started: ${demoSummary(started.proxies.length)}; Ctrl-C stops it and removes what it wrote`);
  }
  console.log(`meshdesk UI: ${core.api.url}/gui/`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`meshdesk stopping (${signal})`);
    core.close().then(
      () => {
        const { kept } = core.demo.status();
        if (kept) console.log(`meshdesk demo: kept what you changed since the demo wrote it: ${kept.join(', ')}`);
        process.exit(0);
      },
      (error: unknown) => {
        console.error('meshdesk did not stop cleanly:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function demoSummary(proxies: number): string {
  return `${proxies} proxies (Envoy-like sidecars and a proxyless gRPC client calling two gRPC servers) registering from node metadata, a MeshHTTPRoute split and a MeshTimeout`;
}

main().catch((error: unknown) => {
  console.error(`meshdesk: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
