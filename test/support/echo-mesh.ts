// The mesh the proxyless gRPC e2e tests start from: a core with a short cache and refresh interval,
// the echo service served by echo-1 and echo-2, and client Dataplanes calling it.
import { onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { startTestCore } from './core.js';
import { applyDataplane, backendDataplane, clientDataplane } from './dataplanes.js';
import { startEchoServer, type EchoServer } from './echo-server.js';

export async function startEchoMesh(clients: readonly string[]): Promise<{ core: Core; backends: EchoServer[] }> {
  const core = await startTestCore();
  core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
  const backends = [await startEchoServer('echo-1'), await startEchoServer('echo-2')];
  for (const backend of backends) onTestFinished(() => backend.stop());
  await applyDataplane(core, backendDataplane('echo-1', backends[0]!.port));
  await applyDataplane(core, backendDataplane('echo-2', backends[1]!.port));
  for (const client of clients) await applyDataplane(core, clientDataplane(client));
  return { core, backends };
}
