import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { decodeResource } from '../../src/main/xds/protocol/decode.js';
import type { ProtoJson } from '../../src/main/xds/protocol/proto-json.js';
import { XDS_TYPE_URLS } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { RawDeltaClient } from '../../src/main/xds/server/testing/raw-delta-client.js';
import type { ProxyEvent } from '../../src/main/xds/status/proxy-timeline.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane } from '../support/dataplanes.js';

/**
 * Two proxies of one mesh with the same Dataplane shape, one speaking State of the World and one
 * delta xDS, against the real core: both go through the same callbacks chain (registration from
 * metadata, the post-create wait, the first generation) and end up with the same configuration.
 */

/**
 * A universal Dataplane as a bootstrap carries it, with one outbound to `backend` and no inbound:
 * two proxies of one mesh cannot both listen on one address and port, and with no inbound their
 * configurations are equal, not merely equivalent.
 */
function web(name: string) {
  return {
    type: 'Dataplane',
    mesh: 'default',
    name,
    networking: {
      address: '127.0.0.1',
      outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }],
    },
  };
}

function node(name: string) {
  return { id: `default.${name}`, user_agent_name: 'envoy', metadata: { 'dataplane.resource': JSON.stringify(web(name)) } };
}

/** What a proxy holds: per type URL, its version and its resources by name, decoded. */
type Config = Map<string, { version: string; resources: Map<string, ProtoJson> }>;

/**
 * Whether the proxy holds, for every type, the version of the snapshot the core has set for it. A
 * type without resources counts as held while the proxy has none of it: SotW never answers an
 * empty RDS or EDS (absence means nothing there), where delta answers a first wildcard anyway.
 */
function holdsSnapshot(core: Core, proxyId: string, config: Config): boolean {
  const snapshot = core.xds.snapshots.getSnapshot(proxyId);
  return (
    snapshot !== undefined &&
    XDS_TYPE_URLS.every((typeUrl) => {
      const held = config.get(typeUrl);
      const expected = snapshot.get(typeUrl)!;
      return held?.version === expected.version || (expected.resources.size === 0 && !held?.resources.size);
    })
  );
}

/** Subscribes to everything (`*`) over SotW, ACKing each response, until the proxy holds its snapshot. */
async function sotwConfig(core: Core, name: string): Promise<Config> {
  const client = new RawAdsClient(core.xds.port, node(name));
  onTestFinished(() => client.close());
  for (const typeUrl of XDS_TYPE_URLS) client.send(typeUrl, { names: ['*'] });
  const config: Config = new Map();
  while (!holdsSnapshot(core, `default.${name}`, config)) {
    const response = await client.next();
    const resources = new Map(response.resources.map((any) => [String(decodeResource(any).name ?? decodeResource(any).cluster_name), decodeResource(any)]));
    config.set(response.type_url, { version: response.version_info, resources });
    client.ack(response);
  }
  return config;
}

/** The same over delta: each response adds, replaces and removes resources. */
async function deltaConfig(core: Core, name: string): Promise<Config> {
  const client = new RawDeltaClient(core.xds.port, node(name));
  onTestFinished(() => client.close());
  for (const typeUrl of XDS_TYPE_URLS) client.send(typeUrl, { subscribe: ['*'] });
  const config: Config = new Map();
  while (!holdsSnapshot(core, `default.${name}`, config)) {
    const response = await client.next();
    const resources = new Map(config.get(response.type_url)?.resources);
    for (const { name: resourceName, resource } of response.resources) resources.set(resourceName, decodeResource(resource));
    for (const removed of response.removed_resources) resources.delete(removed);
    config.set(response.type_url, { version: response.system_version_info, resources });
    client.ack(response);
  }
  return config;
}

/** A proxy's timeline by kind, ticks with their result. */
function kinds(events: readonly ProxyEvent[]): string[] {
  return events.map((event) => (event.kind === 'tick' ? `tick:${event.result}` : event.kind));
}

describe('delta and State of the World xDS, side by side', () => {
  it('two proxies of one mesh get the same configuration and the same post-create wait', async () => {
    const core = await startTestCore();
    core.settings.update({
      'store.cache.expirationTime': '1s',
      'xds.dataplaneConfigurationRefreshInterval': '1s',
      'xds.postCreateStrategy': 'sleep',
    });
    await applyDataplane(core, backendDataplane('backend-1', 18081, 'backend'));
    await core.xds.meshContexts.get('default'); // a warm cache, as in a mesh that has other proxies

    const [sotw, delta] = await Promise.all([sotwConfig(core, 'web-1'), deltaConfig(core, 'web-2')]);

    // The same resources, by name and content, type by type.
    const resources = (config: Config, typeUrl: string) => Object.fromEntries(config.get(typeUrl)?.resources ?? []);
    for (const typeUrl of XDS_TYPE_URLS) {
      expect(Object.keys(resources(delta, typeUrl)).sort(), typeUrl).toEqual(Object.keys(resources(sotw, typeUrl)).sort());
      expect(resources(delta, typeUrl), typeUrl).toEqual(resources(sotw, typeUrl));
    }
    expect(sotw.get(XDS_TYPE_URLS[1])!.resources.size).toBeGreaterThan(0); // the backend's endpoints are there

    // The same path through the callbacks chain: registered from metadata, waited one cache
    // expiration, then the first generation found the Dataplane and its config went out.
    const timelines = ['default.web-1', 'default.web-2'].map((proxyId) => core.xds.timeline.events(proxyId));
    for (const events of timelines.map(kinds)) {
      expect(events.slice(0, 4)).toEqual(['stream-opened', 'registered', 'post-create-wait-started', 'post-create-wait']);
      expect(events.find((kind) => kind.startsWith('tick:'))).toBe('tick:changed');
      expect(events.indexOf('response')).toBeGreaterThan(events.indexOf('post-create-wait'));
    }
    const waits = timelines.map((events) => events.find((event) => event.kind === 'post-create-wait'));
    expect(waits.map((wait) => wait && { strategy: wait.strategy, cause: wait.cause })).toEqual([
      { strategy: 'sleep', cause: 'waited 1.00 s for cache expiration (strategy: sleep)' },
      { strategy: 'sleep', cause: 'waited 1.00 s for cache expiration (strategy: sleep)' },
    ]);

    // Each proxy's status says which protocol it speaks.
    expect(['default.web-1', 'default.web-2'].map((proxyId) => core.xds.statusTracker.status(proxyId)?.protocol)).toEqual(['sotw', 'delta']);
  });
});
