import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import type { ProxyEvent } from '../../src/main/xds/status/proxy-timeline.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane } from '../support/dataplanes.js';

/**
 * The behaviour meshdesk is built around (SPEC §5): a universal proxy that brings its Dataplane in
 * node metadata is registered before the sync tracker's first generation, and then, by strategy,
 * waits one cache expiration (sleep), drops the stale cache entries (invalidate) or does neither
 * (none: the first generation misses it). Every test starts with a warm cache that predates the
 * proxy, as a mesh with other proxies has, and asserts on the recorded events and their order.
 */

const TTL = '1s';
const TTL_MS = 1000;

const web = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'web-1',
  networking: {
    address: '127.0.0.1',
    inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }],
  },
};

async function coreWithStrategy(strategy: 'sleep' | 'invalidate' | 'none'): Promise<Core> {
  const core = await startTestCore();
  core.settings.update({
    'store.cache.expirationTime': TTL,
    'xds.dataplaneConfigurationRefreshInterval': '1s',
    'xds.postCreateStrategy': strategy,
  });
  return core;
}

/** Connects like Envoy does: CDS wildcard first, optionally with the Dataplane in metadata; waits for the first CDS and ACKs it. */
async function connectEnvoyLike(core: Core, withMetadata: boolean): Promise<void> {
  await core.xds.meshContexts.get('default'); // the warm cache of a mesh that has other proxies
  const client = new RawAdsClient(core.xds.port, {
    id: 'default.web-1',
    user_agent_name: 'envoy',
    ...(withMetadata && { metadata: { 'dataplane.resource': JSON.stringify(web) } }),
  });
  onTestFinished(() => client.close());
  client.send(CLUSTER_TYPE_URL);
  client.ack(await client.next());
}

function kinds(events: readonly ProxyEvent[]): string[] {
  return events.map((event) => (event.kind === 'tick' ? `tick:${event.result}` : event.kind));
}

function first<K extends ProxyEvent['kind']>(events: readonly ProxyEvent[], kind: K): Extract<ProxyEvent, { kind: K }> {
  const event = events.find((each) => each.kind === kind);
  if (!event) throw new Error(`no ${kind} event in ${kinds(events).join(', ')}`);
  return event as Extract<ProxyEvent, { kind: K }>;
}

describe('post-create wait for a Dataplane that came in node metadata', () => {
  it('sleep: waits one cache expiration, so the first generation already finds the Dataplane', async () => {
    const core = await coreWithStrategy('sleep');
    await connectEnvoyLike(core, true);
    const events = core.xds.timeline.events('default.web-1');

    expect(kinds(events).slice(0, 5)).toEqual(['stream-opened', 'registered', 'post-create-wait-started', 'post-create-wait', 'tick:changed']);
    expect(kinds(events)).not.toContain('tick:dataplane-not-found');
    expect(first(events, 'registered')).toMatchObject({ origin: 'metadata', created: true });
    const wait = first(events, 'post-create-wait');
    expect(wait).toMatchObject({ strategy: 'sleep', cause: expect.stringContaining('cache expiration') });
    expect(wait.waitedMs).toBeGreaterThanOrEqual(TTL_MS);
    // The first config went out after the wait, i.e. about one TTL after registration.
    expect(first(events, 'response').at).toBeGreaterThanOrEqual(first(events, 'registered').at + TTL_MS);
  });

  it('none: the first generation misses the Dataplane and the config comes on a later tick', async () => {
    const core = await coreWithStrategy('none');
    await connectEnvoyLike(core, true);
    const events = core.xds.timeline.events('default.web-1');

    expect(kinds(events).slice(0, 4)).toEqual(['stream-opened', 'registered', 'post-create-wait', 'tick:dataplane-not-found']);
    const wait = first(events, 'post-create-wait');
    expect(wait.strategy).toBe('none');
    expect(wait.waitedMs).toBeLessThan(TTL_MS);
    expect(first(events, 'tick')).toMatchObject({ detail: 'dataplane not found' });
    // A later tick generated the config, and the first response went out after the miss (a tick
    // is recorded when it ends, so its snapshot's response can be recorded just before it).
    const miss = kinds(events).indexOf('tick:dataplane-not-found');
    expect(kinds(events).slice(miss + 1)).toContain('tick:changed');
    expect(events.findIndex((event) => event.kind === 'response')).toBeGreaterThan(miss);
  });

  it('invalidate: drops the stale cache entries instead of waiting, and the first generation finds the Dataplane', async () => {
    const core = await coreWithStrategy('invalidate');
    await connectEnvoyLike(core, true);
    const events = core.xds.timeline.events('default.web-1');

    expect(kinds(events).slice(0, 4)).toEqual(['stream-opened', 'registered', 'post-create-wait', 'tick:changed']);
    expect(kinds(events)).not.toContain('tick:dataplane-not-found');
    const wait = first(events, 'post-create-wait');
    expect(wait.strategy).toBe('invalidate');
    expect(wait.waitedMs).toBeLessThan(TTL_MS);
  });

  for (const strategy of ['sleep', 'invalidate', 'none'] as const) {
    it(`a Dataplane created beforehand through the API never waits (strategy: ${strategy})`, async () => {
      const core = await coreWithStrategy(strategy);
      await applyDataplane(core, web);
      await connectEnvoyLike(core, false);
      const events = core.xds.timeline.events('default.web-1');

      expect(kinds(events).slice(0, 3)).toEqual(['stream-opened', 'registered', 'tick:changed']);
      expect(first(events, 'registered')).toMatchObject({ origin: 'api', created: false });
      expect(kinds(events)).not.toContain('post-create-wait');
    });
  }
});
