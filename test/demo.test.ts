// `npm run demo` (headless mode's entry point with --demo) as a real child process.
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { FirstConfigBody, ProxyStatus } from '../src/shared/api-types.js';
import type { DemoStatus } from '../src/shared/demo-types.js';
import { eventually } from './support/eventually.js';
import { startHeadless } from './support/headless-process.js';
import { tempDir } from './support/temp-dir.js';
import { withControlPlaneCert } from './support/with-control-plane-cert.js';

// A control plane, seven proxies and two gRPC servers on a shared 2-core machine: bounds, not timings.
vi.setConfig({ testTimeout: 120_000 });

const json = async <T>(url: string): Promise<T> => (await (await fetch(url)).json()) as T;

/** Resolves true when something accepts a TCP connection on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Processes whose parent is `pid` (Linux `ps`). */
function childrenOf(pid: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' });
  return table
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, parent]) => parent === pid)
    .map(([child]) => child!);
}

describe('npm run demo', () => {
  it('starts a small real mesh whose proxies wait one cache expiration, calls through it, and on SIGINT leaves nothing behind', async () => {
    const dataDir = withControlPlaneCert(tempDir());
    const demo = await startHeadless(['--demo', '--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    // A failed check must not leave the demo running.
    onTestFinished(async () => {
      if (demo.child.exitCode === null && demo.child.signalCode === null) await demo.stop('SIGKILL');
    });
    // It prints the UI's address once the demo is started.
    await eventually(() => expect(demo.output()).toContain(`meshdesk UI: ${demo.apiUrl}/gui/`), { deadlineMs: 60_000 });
    const adsPort = Number(/ADS \(xDS\) listening on \S+:(\d+)/.exec(demo.output())![1]);
    const apiPort = Number(new URL(demo.apiUrl).port);
    const status = await json<DemoStatus>(`${demo.apiUrl}/demo`);
    expect(status).toMatchObject({ state: 'running', mesh: 'demo' });
    expect(status.proxies).toHaveLength(7);

    // Every demo proxy configured, each after a post-create wait of one cache expiration (1 s by default).
    await eventually(async () => {
      const { items } = await json<{ items: ProxyStatus[] }>(`${demo.apiUrl}/proxies`);
      for (const proxyId of status.proxies) expect(items.find((item) => item.proxyId === proxyId)?.state, proxyId).toBe('configured');
    }, { deadlineMs: 60_000 });
    for (const proxyId of status.proxies) {
      const name = proxyId.slice('demo.'.length);
      // Complete once every type it got is ACKed, a moment after its first response made it "configured".
      const firstConfig = await eventually(async () => {
        const body = await json<FirstConfigBody>(`${demo.apiUrl}/meshes/demo/dataplanes/${name}/_first-config`);
        expect(body.total.complete, proxyId).toBe(true);
        return body;
      });
      expect(firstConfig.registration, proxyId).toMatchObject({ origin: 'metadata', created: true });
      expect(firstConfig.postCreateWait?.strategy, proxyId).toBe('sleep');
      expect(firstConfig.postCreateWait!.waitedMs, proxyId).toBeGreaterThanOrEqual(1000);
    }
    // The proxyless gRPC client calls both greeter versions through the MeshHTTPRoute split.
    await eventually(async () => {
      const { greeter } = await json<DemoStatus>(`${demo.apiUrl}/demo`);
      expect(greeter?.byVersion.v1).toBeGreaterThan(0);
      expect(greeter?.byVersion.v2).toBeGreaterThan(0);
    }, { deadlineMs: 60_000 });
    const policies = await json<{ items: { name: string }[] }>(`${demo.apiUrl}/meshes/demo/meshhttproutes`);
    expect(policies.items.map((item) => item.name)).toEqual(['greeter-split']);

    // The terminal: one connected line per connection, the wait's real length, a graceful stop without refusals.
    for (const proxyId of status.proxies) {
      const lines = demo.output().split('\n').filter((line) => line.startsWith(`proxy ${proxyId} `));
      expect(lines.filter((line) => line.endsWith(': connected')), proxyId).toHaveLength(1);
      expect(lines.find((line) => line.includes('post-create wait took')), proxyId).toMatch(/post-create wait took (\d+\.\d{3}) s: waited 1\.00 s for cache expiration/);
      const took = Number(/wait took (\d+\.\d{3}) s/.exec(lines.find((line) => line.includes('wait took'))!)![1]);
      expect(took, proxyId).toBeGreaterThanOrEqual(1);
    }

    const pid = demo.child.pid!;
    const children = childrenOf(pid);
    expect(await demo.stop('SIGINT')).toBe(0);
    expect(demo.output()).not.toContain('refused');
    for (const child of children) expect(() => process.kill(child, 0), `child ${child} of the demo`).toThrow();
    expect(childrenOf(pid)).toEqual([]);
    expect(await accepts(apiPort)).toBe(false);
    expect(await accepts(adsPort)).toBe(false);

    // What it wrote is gone; what meshdesk made for the user (the default mesh) is not.
    const after = await startHeadless(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    try {
      const meshes = await json<{ items: { name: string }[] }>(`${after.apiUrl}/meshes`);
      expect(meshes.items.map((mesh) => mesh.name)).toEqual(['default']);
      expect((await json<{ total: number }>(`${after.apiUrl}/dataplanes`)).total).toBe(0);
      expect((await json<{ items: { name: string }[] }>(`${after.apiUrl}/meshes/default/meshtimeouts`)).items.map((item) => item.name)).toContain('mesh-timeout-all-default');
    } finally {
      await after.stop();
    }
  });
});
