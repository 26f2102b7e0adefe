import { describe, expect, it, onTestFinished } from 'vitest';
import type { FirstConfigBody, ProxyTimelineBody } from '../../src/shared/api-types.js';
import type { XdsStats } from '../../src/shared/stats-types.js';
import { CLUSTER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import type { Core } from '../../src/main/core.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, tokenMetadata } from '../support/dataplanes.js';
import { eventually } from '../support/eventually.js';

/**
 * Issue 23.5: with mesh mTLS on, a proxy's first config waits for its identity certificate (a key
 * pair and a signature). The first-config breakdown and Sync timing name that as its own phase,
 * measured around the issuance, instead of counting it as waiting for the mesh's view.
 */

async function connectConfigured(core: Core, name: string): Promise<FirstConfigBody> {
  await applyDataplane(core, {
    type: 'Dataplane',
    mesh: 'default',
    name,
    networking: { address: '127.0.0.1', inbound: [{ port: 18080, tags: { 'kuma.io/service': name } }] },
  } as { mesh: string; name: string });
  // Its token, as every bootstrap carries it: a proxy of an mTLS mesh must send it.
  const proxy = new RawAdsClient(core.xds.port, { id: `default.${name}`, metadata: tokenMetadata(core, name) });
  onTestFinished(() => proxy.close());
  proxy.send(CLUSTER_TYPE_URL);
  proxy.ack(await proxy.next());
  return eventually(async () => {
    const breakdown = (await (await fetch(`${core.api.url}/meshes/default/dataplanes/${name}/_first-config`)).json()) as FirstConfigBody;
    expect(breakdown.total.complete).toBe(true);
    return breakdown;
  });
}

describe('certificate issuance in the first-config breakdown', () => {
  it('is a phase of its own with mTLS on, measured where the certificate is issued, and in Sync timing', async () => {
    const core = await startTestCore();
    const mtls = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };
    await fetch(`${core.api.url}/meshes/default`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'default', mtls }) });
    const breakdown = await connectConfigured(core, 'web-1');

    const names = breakdown.phases.map((phase) => phase.name);
    expect(names).toEqual(['registration', 'certificate-issuance', 'first-generation', 'first-responses', 'first-acks']);
    const issuance = breakdown.certificateIssuance!;
    expect(issuance.durationMs).toBeGreaterThan(0);
    expect(issuance.endMs - issuance.startMs).toBeCloseTo(issuance.durationMs, 6);
    expect(breakdown.phases[1]).toMatchObject({ endMs: issuance.endMs });
    expect(breakdown.phases[1]!.label).toContain('identity certificate');
    // The tick's time before generating no longer holds the issuance: it starts before the certificate did.
    expect(breakdown.firstTick!.startMs).toBeLessThanOrEqual(issuance.startMs);

    const { events } = (await (await fetch(`${core.api.url}/meshes/default/dataplanes/web-1/_timeline`)).json()) as ProxyTimelineBody;
    const issuingTick = events.find((event) => event.kind === 'tick' && event.certificate);
    expect(issuingTick).toMatchObject({ certificate: { durationMs: issuance.durationMs } });

    const stats = (await (await fetch(`${core.api.url}/stats/xds`)).json()) as XdsStats;
    const row = stats.proxies.find((proxy) => proxy.proxyId === 'default.web-1')!;
    expect(row.breakdown.phases.map((phase) => phase.name)).toContain('certificate-issuance');
    expect(stats.strategies[0]!.meanPhasesMs['certificate-issuance']).toBeGreaterThan(0);
  });

  it('has no such phase without mTLS', async () => {
    const core = await startTestCore();
    const breakdown = await connectConfigured(core, 'web-2');
    expect(breakdown.phases.map((phase) => phase.name)).toEqual(['registration', 'first-generation', 'first-responses', 'first-acks']);
    expect(breakdown.certificateIssuance).toBeUndefined();
  });
});
