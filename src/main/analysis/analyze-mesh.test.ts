import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding, MeshAnalysis } from '../../shared/analysis-types.js';
import type { Core } from '../core.js';
import { startTestCore } from '../../../test/support/core.js';
import { applyDataplane, httpDataplane } from '../../../test/support/dataplanes.js';
import { putResource } from '../../../test/support/put-resource.js';

// Each analyzer against a real core: resources written through the API, analysis read back from
// GET /meshes/{mesh}/_analysis, one mesh per case so that cases do not see each other's findings.

let core: Core;
let meshes = 0;

beforeAll(async () => {
  core = await startTestCore();
  // The analysis reads the mesh as proxies are generated from it: with caching off, that is what was just written.
  core.settings.update({ 'store.cache.expirationTime': '0s' });
});
afterAll(() => core.close());

const MTLS = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };

/** A fresh mesh with web (calling backend) and backend, both HTTP: Kuma's initial policies in it. */
async function webAndBackend(meshSpec: object = {}): Promise<string> {
  const mesh = `analysis-${++meshes}`;
  await putResource(core.api.url, `/meshes/${mesh}`, { type: 'Mesh', name: mesh, ...meshSpec });
  await applyDataplane(core, httpDataplane(mesh, 'web-1', 'web', 18080, 'backend'));
  await applyDataplane(core, httpDataplane(mesh, 'backend-1', 'backend', 18081));
  return mesh;
}

async function policy(mesh: string, type: string, name: string, spec: object): Promise<void> {
  const collection = type === 'MeshRetry' ? 'meshretries' : `${type.toLowerCase()}s`;
  await putResource(core.api.url, `/meshes/${mesh}/${collection}/${name}`, { type, mesh, name, spec });
}

async function analysis(mesh: string): Promise<MeshAnalysis> {
  const response = await fetch(`${core.api.url}/meshes/${mesh}/_analysis`);
  expect(response.status).toBe(200);
  return (await response.json()) as MeshAnalysis;
}

async function findings(mesh: string, code: string): Promise<Finding[]> {
  return (await analysis(mesh)).findings.filter((finding) => finding.code === code);
}

const MESH = { kind: 'Mesh' };
const BACKEND = { kind: 'MeshService', name: 'backend' };

describe('mesh analysis', () => {
  it("finds nothing in a mesh with Kuma's initial policies only, with mTLS off or on", async () => {
    expect((await analysis(await webAndBackend())).findings).toEqual([]);
    // With mTLS on, web's outbound to backend is denied (no MeshTrafficPermission): that one finding only.
    expect((await analysis(await webAndBackend({ mtls: MTLS }))).findings.map((finding) => finding.code)).toEqual(['MD0010']);
  });

  it("finds nothing in policies written as Kuma's documentation writes them, in a mesh that has what they name", async () => {
    const mesh = await webAndBackend({ mtls: MTLS });
    await applyDataplane(core, httpDataplane(mesh, 'backend-v2', 'backend', 18082));
    const web = { kind: 'MeshService', name: 'web' };
    await policy(mesh, 'MeshTimeout', 'timeout-backend', {
      targetRef: web,
      to: [{ targetRef: BACKEND, default: { idleTimeout: '20s', connectionTimeout: '2s', http: { requestTimeout: '2s', streamIdleTimeout: '1h' } } }],
    });
    await policy(mesh, 'MeshRetry', 'retry-backend', {
      targetRef: web,
      to: [{ targetRef: BACKEND, default: { http: { numRetries: 3, perTryTimeout: '500ms', backOff: { baseInterval: '15ms', maxInterval: '1s' } } } }],
    });
    await policy(mesh, 'MeshCircuitBreaker', 'circuit-breaker-backend', {
      targetRef: MESH,
      to: [{ targetRef: BACKEND, default: { connectionLimits: { maxConnections: 2, maxPendingRequests: 8 }, outlierDetection: { detectors: { totalFailures: { consecutive: 10 } } } } }],
    });
    await policy(mesh, 'MeshHTTPRoute', 'split-backend', {
      targetRef: web,
      to: [{ targetRef: BACKEND, rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], default: { backendRefs: [{ ...BACKEND, weight: 90 }, { kind: 'MeshService', name: 'backend', weight: 10 }] } }] }],
    });
    await policy(mesh, 'MeshTrafficPermission', 'allow-web', { targetRef: BACKEND, from: [{ targetRef: web, default: { action: 'Allow' } }] });
    expect((await analysis(mesh)).findings).toEqual([]);
  });

  it('MD0001: a to item naming a service nothing provides or calls, and a top-level targetRef no Dataplane matches', async () => {
    const mesh = await webAndBackend();
    await policy(mesh, 'MeshTimeout', 'ledger-timeout', { targetRef: { kind: 'MeshService', name: 'web' }, to: [{ targetRef: { kind: 'MeshService', name: 'ledger' }, default: { http: { requestTimeout: '5s' } } }] });
    await policy(mesh, 'MeshRetry', 'nobody-retry', { targetRef: { kind: 'MeshService', name: 'nobody' }, to: [{ targetRef: BACKEND, default: { http: { numRetries: 1 } } }] });
    const found = await findings(mesh, 'MD0001');
    expect(found.map((finding) => `${finding.location.name} ${finding.location.field}`)).toEqual(['nobody-retry spec.targetRef', 'ledger-timeout spec.to[0].targetRef']);
    expect(found[1]!.message).toContain('names service "ledger", which no Dataplane');
    // Kuma's docs write to: MeshService backend where backend exists: nothing to say.
    await policy(mesh, 'MeshTimeout', 'ledger-timeout', { targetRef: { kind: 'MeshService', name: 'web' }, to: [{ targetRef: BACKEND, default: { http: { requestTimeout: '5s' } } }] });
    expect((await findings(mesh, 'MD0001')).map((finding) => finding.location.name)).toEqual(['nobody-retry']);
  });

  it('MD0002: a mesh-wide MeshTimeout that loses every field to mesh-timeout-all-default, named with Kuma’s reason', async () => {
    const mesh = await webAndBackend();
    await policy(mesh, 'MeshTimeout', 'slow-timeout', { targetRef: MESH, to: [{ targetRef: MESH, default: { http: { requestTimeout: '60s' } } }] });
    const [finding, ...others] = await findings(mesh, 'MD0002');
    expect(others).toEqual([]);
    expect(finding).toMatchObject({
      severity: 'warning',
      location: { type: 'MeshTimeout', mesh, name: 'slow-timeout' },
      related: [{ type: 'MeshTimeout', name: `mesh-timeout-all-${mesh}` }],
      proxies: [`${mesh}.backend-1`, `${mesh}.web-1`],
    });
    expect(finding!.message).toContain(`mesh-timeout-all-${mesh} is merged after it`);
    expect(finding!.message).toContain('the alphabetically smaller name last');
    expect(finding!.fix).toContain('Rename slow-timeout');
  });

  it('MD0002 does not flag a policy that wins a field, by name order or by a more specific targetRef', async () => {
    const mesh = await webAndBackend();
    await policy(mesh, 'MeshTimeout', 'a-slow-timeout', { targetRef: MESH, to: [{ targetRef: MESH, default: { http: { requestTimeout: '60s' } } }] });
    await policy(mesh, 'MeshTimeout', 'web-timeout', { targetRef: { kind: 'MeshService', name: 'web' }, to: [{ targetRef: BACKEND, default: { http: { requestTimeout: '5s' } } }] });
    expect(await findings(mesh, 'MD0002')).toEqual([]);
  });

  it('MD0003: a header rule behind a split on PathPrefix / can never match; with a path of its own it can', async () => {
    const mesh = await webAndBackend();
    await applyDataplane(core, httpDataplane(mesh, 'backend-v2', 'backend-v2', 18082));
    const route = (headerPath?: object) => ({
      targetRef: MESH,
      to: [
        {
          targetRef: BACKEND,
          rules: [
            { matches: [{ ...(headerPath && { path: headerPath }), headers: [{ name: 'x-version', value: 'v2' }] }], default: { backendRefs: [{ kind: 'MeshService', name: 'backend-v2' }] } },
            { matches: [{ path: { type: 'PathPrefix', value: '/' } }], default: { backendRefs: [{ ...BACKEND, weight: 90 }, { kind: 'MeshService', name: 'backend-v2', weight: 10 }] } },
          ],
        },
      ],
    });
    await policy(mesh, 'MeshHTTPRoute', 'canary', route());
    const [finding, ...others] = await findings(mesh, 'MD0003');
    expect(others).toEqual([]);
    expect(finding).toMatchObject({
      location: { type: 'MeshHTTPRoute', name: 'canary', field: 'spec.to[0].rules[0].matches[0]' },
      related: [{ name: 'canary', field: 'spec.to[0].rules[1].matches[0]' }],
      proxies: [`${mesh}.web-1`],
    });
    expect(finding!.message).toContain('(any path, header x-version: v2) can never match for traffic to backend');

    await policy(mesh, 'MeshHTTPRoute', 'canary', route({ type: 'PathPrefix', value: '/' }));
    expect(await findings(mesh, 'MD0003')).toEqual([]);
  });

  it('MD0004: the same match in two rules; MD0005: a rule whose backendRefs weigh 0', async () => {
    const mesh = await webAndBackend();
    const prefix = { path: { type: 'PathPrefix', value: '/api' } };
    await policy(mesh, 'MeshHTTPRoute', 'twice', {
      targetRef: MESH,
      to: [
        {
          targetRef: BACKEND,
          rules: [
            { matches: [prefix], default: { backendRefs: [BACKEND] } },
            { matches: [{ path: { type: 'Exact', value: '/health' } }, prefix], default: { backendRefs: [{ ...BACKEND, weight: 0 }] } },
          ],
        },
      ],
    });
    const [duplicate] = await findings(mesh, 'MD0004');
    expect(duplicate).toMatchObject({ location: { name: 'twice', field: 'spec.to[0].rules[1].matches[1]' }, related: [{ field: 'spec.to[0].rules[0].matches[0]' }] });
    const [zero] = await findings(mesh, 'MD0005');
    expect(zero).toMatchObject({ location: { name: 'twice', field: 'spec.to[0].rules[1].default.backendRefs' }, proxies: [`${mesh}.web-1`] });
  });

  it('MD0010: with mTLS on, an outbound its destination denies is an error; allowed, it is not', async () => {
    const mesh = await webAndBackend({ mtls: MTLS });
    const [finding] = await findings(mesh, 'MD0010');
    expect(finding).toMatchObject({ severity: 'error', location: { type: 'Dataplane', name: 'web-1', field: 'networking.outbound[0]' }, proxies: [`${mesh}.web-1`] });
    expect(finding!.message).toContain('web has an outbound to backend, and backend denies it');
    await policy(mesh, 'MeshTrafficPermission', 'web-to-backend', { targetRef: BACKEND, from: [{ targetRef: { kind: 'MeshService', name: 'web' }, default: { action: 'Allow' } }] });
    expect(await findings(mesh, 'MD0010')).toEqual([]);
  });

  it('MD0011: MeshTrafficPermissions with mTLS off; MD0012: PERMISSIVE mode', async () => {
    const off = await webAndBackend();
    await policy(off, 'MeshTrafficPermission', 'allow-web', { targetRef: BACKEND, from: [{ targetRef: { kind: 'MeshService', name: 'web' }, default: { action: 'Allow' } }] });
    expect((await findings(off, 'MD0011')).map((finding) => finding.location.name)).toEqual(['allow-web']);
    const permissive = await webAndBackend({ mtls: { ...MTLS, backends: [{ name: 'ca-1', type: 'builtin', mode: 'PERMISSIVE' }] } });
    const [finding] = await findings(permissive, 'MD0012');
    expect(finding).toMatchObject({ severity: 'info', location: { type: 'Mesh', name: permissive, field: 'spec.mtls.backends[0].mode' } });
    expect(await findings(permissive, 'MD0011')).toEqual([]);
  });

  it('MD0020: retries that cannot fit in the request timeout; MD0021: a stream idle timeout below it', async () => {
    const mesh = await webAndBackend();
    await policy(mesh, 'MeshRetry', 'backend-retry', { targetRef: MESH, to: [{ targetRef: BACKEND, default: { http: { numRetries: 3, perTryTimeout: '10s' } } }] });
    const [retry] = await findings(mesh, 'MD0020');
    expect(retry).toMatchObject({
      location: { type: 'MeshRetry', name: 'backend-retry', field: 'spec.to[0].default.http.perTryTimeout' },
      related: [{ type: 'MeshTimeout', name: `mesh-timeout-all-${mesh}`, field: 'spec.to[0].default.http.requestTimeout' }],
      proxies: [`${mesh}.web-1`],
    });
    expect(retry!.message).toContain('allows 4 tries of up to 10s (40s), but MeshTimeout');
    expect(retry!.fix).toContain('Lower perTryTimeout to at most 3.75s');

    await policy(mesh, 'MeshRetry', 'backend-retry', { targetRef: MESH, to: [{ targetRef: BACKEND, default: { http: { numRetries: 3, perTryTimeout: '3s' } } }] });
    expect(await findings(mesh, 'MD0020')).toEqual([]);

    await policy(mesh, 'MeshTimeout', 'backend-timeout', { targetRef: { kind: 'MeshService', name: 'web' }, to: [{ targetRef: BACKEND, default: { http: { requestTimeout: '30s', streamIdleTimeout: '10s' } } }] });
    const [idle] = await findings(mesh, 'MD0021');
    expect(idle).toMatchObject({ severity: 'info', location: { name: 'backend-timeout', field: 'spec.to[0].default.http.streamIdleTimeout' } });
  });

  it('MD0030: an outbound to a service no Dataplane serves; once one does, nothing', async () => {
    const mesh = await webAndBackend();
    await applyDataplane(core, {
      type: 'Dataplane', mesh, name: 'client-1', networking: { address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }, { port: 10002, tags: { 'kuma.io/service': 'ledger' } }] },
    } as { mesh: string; name: string });
    const [finding, ...others] = await findings(mesh, 'MD0030');
    expect(others).toEqual([]);
    expect(finding).toMatchObject({ location: { type: 'Dataplane', name: 'client-1', field: 'networking.outbound[1].tags' }, proxies: [`${mesh}.client-1`] });
    expect(finding!.message).toContain('has an outbound to ledger, and no Dataplane');
    await applyDataplane(core, {
      type: 'Dataplane', mesh, name: 'ledger-1', networking: { address: '127.0.0.1', inbound: [{ port: 18090, tags: { 'kuma.io/service': 'ledger' } }] },
    } as { mesh: string; name: string });
    expect(await findings(mesh, 'MD0030')).toEqual([]);
  });

  it("a policy's PUT answer, and the editor's question before Apply, carry the analysis's findings about it", async () => {
    const mesh = await webAndBackend();
    const slow = { type: 'MeshTimeout', mesh, name: 'slow-timeout', spec: { targetRef: MESH, to: [{ targetRef: MESH, default: { http: { requestTimeout: '60s' } } }] } };
    const before = await fetch(`${core.api.url}/meshes/${mesh}/_policy-warnings`, { method: 'POST', body: JSON.stringify(slow) });
    expect(((await before.json()) as { warnings: string[] }).warnings).toEqual([expect.stringMatching(/^MD0002: MeshTimeout slow-timeout selects 2 proxies and changes nothing on any of them: .*\. Fix: Rename slow-timeout/)]);
    const put = await fetch(`${core.api.url}/meshes/${mesh}/meshtimeouts/slow-timeout`, { method: 'PUT', body: JSON.stringify(slow) });
    expect(put.status).toBe(201);
    expect(((await put.json()) as { warnings: string[] }).warnings).toEqual([expect.stringMatching(/^MD0002: MeshTimeout slow-timeout/)]);
    // Renamed to sort first, it wins its field: nothing to say.
    const winning = await fetch(`${core.api.url}/meshes/${mesh}/meshtimeouts/a-slow-timeout`, { method: 'PUT', body: JSON.stringify({ ...slow, name: 'a-slow-timeout' }) });
    expect(await winning.json()).toEqual({});
  });

  it('POST analyzes policies as they would be with the mesh, without writing them, and refuses what is not a policy', async () => {
    const mesh = await webAndBackend();
    const yaml = `type: MeshTimeout\nname: slow-timeout\nmesh: ${mesh}\nspec:\n  targetRef: {kind: Mesh}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {http: {requestTimeout: 60s}}\n`;
    const response = await fetch(`${core.api.url}/meshes/${mesh}/_analysis`, { method: 'POST', body: yaml });
    expect(response.status).toBe(200);
    expect(((await response.json()) as MeshAnalysis).findings.map((finding) => `${finding.code} ${finding.location.name}`)).toEqual(['MD0002 slow-timeout']);
    expect((await fetch(`${core.api.url}/meshes/${mesh}/meshtimeouts/slow-timeout`)).status).toBe(404);

    const refused = await fetch(`${core.api.url}/meshes/${mesh}/_analysis`, { method: 'POST', body: `type: Dataplane\nname: x\nmesh: ${mesh}\n` });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('an analysis before applying takes policies only');
    expect((await fetch(`${core.api.url}/meshes/nowhere/_analysis`)).status).toBe(404);
  });
});
