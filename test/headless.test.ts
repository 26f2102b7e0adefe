import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INSTANCE_FILE } from '../src/main/instance/instance-file.js';
import { listen } from '../src/main/net/listen.js';
import { DATAPLANE_METADATA_KEY } from '../src/main/xds/generate/bootstrap.js';
import { CLUSTER_TYPE_URL } from '../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../src/main/xds/server/testing/raw-ads-client.js';
import { eventually } from './support/eventually.js';
import { runHeadlessExpectingFailure, startHeadless } from './support/headless-process.js';
import { tempDir } from './support/temp-dir.js';

const backend = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'backend-1',
  networking: {
    address: '127.0.0.1',
    inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' } }],
  },
};

describe('headless mode', () => {
  it('keeps an applied Dataplane, with its version, across a restart on the same data directory', async () => {
    const dataDir = tempDir();
    const first = await startHeadless(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    const url = `${first.apiUrl}/meshes/default/dataplanes/backend-1`;
    expect((await fetch(url, { method: 'PUT', body: JSON.stringify(backend) })).status).toBe(201);
    expect((await fetch(url, { method: 'PUT', body: JSON.stringify({ ...backend, labels: { team: 'a' } }) })).status).toBe(200);
    const written = (await (await fetch(url)).json()) as { version: number };
    expect(written.version).toBe(2);
    expect(existsSync(join(dataDir, INSTANCE_FILE))).toBe(true);
    expect(await first.stop('SIGTERM')).toBe(0);
    // Stopped by a signal, it freed its data directory: the next start takes it over from nobody.
    expect(existsSync(join(dataDir, INSTANCE_FILE))).toBe(false);

    const second = await startHeadless(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    try {
      const read = await fetch(`${second.apiUrl}/meshes/default/dataplanes/backend-1`);
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ ...backend, labels: { team: 'a', 'kuma.io/origin': 'zone' }, version: 2 });
      expect(second.output()).not.toContain('took the data directory over');
    } finally {
      expect(await second.stop('SIGINT')).toBe(0);
    }
    expect(existsSync(join(dataDir, INSTANCE_FILE))).toBe(false);
  });

  it('prints one line per proxy state change, with the status a refused proxy got, and none per tick', async () => {
    const proc = await startHeadless(['--data-dir', tempDir(), '--api-port', '0', '--ads-port', '0']);
    const clients: RawAdsClient[] = [];
    try {
      const adsPort = await eventually(() => Number(/ADS \(xDS\) listening on \S+:(\d+)/.exec(proc.output())![1]));
      const bad = new RawAdsClient(adsPort, {
        id: 'default.bad',
        metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify({ ...backend, name: 'bad', networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: {} }] } }) },
      });
      const ghost = new RawAdsClient(adsPort, { id: 'default.ghost' });
      clients.push(bad, ghost);
      bad.send(CLUSTER_TYPE_URL);
      ghost.send(CLUSTER_TYPE_URL);
      const told = await bad.status;

      await eventually(() => expect(proc.output()).toContain(`refused with INVALID_ARGUMENT: ${told.details}`));
      // The ghost's sync ticks every second and finds nothing each time: its state changed once.
      await eventually(async () => {
        const { events } = (await (await fetch(`${proc.apiUrl}/meshes/default/dataplanes/ghost/_timeline`)).json()) as { events: { kind: string }[] };
        expect(events.filter((event) => event.kind === 'tick').length).toBeGreaterThanOrEqual(3);
      });
      const ghostLines = proc.output().split('\n').filter((line) => line.startsWith('proxy default.ghost '));
      expect(ghostLines).toHaveLength(2);
      expect(ghostLines[1]).toContain('no Dataplane has its node id');
    } finally {
      for (const client of clients) client.close();
      await proc.stop();
    }
  });

  it('on a graceful stop says the proxies disconnected, not that they were refused', async () => {
    const proc = await startHeadless(['--data-dir', tempDir(), '--api-port', '0', '--ads-port', '0']);
    const adsPort = Number(/ADS \(xDS\) listening on \S+:(\d+)/.exec(proc.output())![1]);
    const proxy = new RawAdsClient(adsPort, { id: 'default.backend-1', metadata: { [DATAPLANE_METADATA_KEY]: JSON.stringify(backend) } });
    try {
      proxy.send(CLUSTER_TYPE_URL);
      await eventually(() => expect(proc.output()).toContain('proxy default.backend-1 (stream 1 from'));
      await eventually(() => expect(proc.output()).toMatch(/default\.backend-1 .*: configured/));
      expect(await proc.stop('SIGINT')).toBe(0);
      const lines = proc.output().split('\n').filter((line) => line.startsWith('proxy default.backend-1 '));
      expect(lines.filter((line) => line.endsWith(': connected'))).toHaveLength(1);
      expect(lines.at(-1)).toMatch(/: disconnected$/);
      expect(proc.output()).not.toContain('refused');
    } finally {
      proxy.close();
    }
  });

  it('takes its data directory and ports from environment variables', async () => {
    const dataDir = tempDir();
    const proc = await startHeadless([], { MESHDESK_DATA_DIR: dataDir, MESHDESK_API_PORT: '0', MESHDESK_ADS_PORT: '0' });
    try {
      expect(proc.output()).toContain(`data directory: ${dataDir}`);
      expect((await fetch(`${proc.apiUrl}/meshes/default`)).status).toBe(200);
      const described = (await (await fetch(`${proc.apiUrl}/settings/schema`)).json()) as { name: string; source: string; sourceName?: string; pendingValue?: unknown }[];
      expect(described.find((setting) => setting.name === 'apiServer.port')).toMatchObject({ source: 'environment', sourceName: 'MESHDESK_API_PORT' });
      expect(described.find((setting) => setting.name === 'apiServer.port')).not.toHaveProperty('pendingValue');
    } finally {
      await proc.stop();
    }
  });

  it('refuses to start when the API port is taken, naming the port', async () => {
    const blocker = createServer();
    const port = await listen(blocker, { host: '127.0.0.1', port: 0, purpose: 'test blocker' });
    try {
      const { code, output } = await runHeadlessExpectingFailure(['--data-dir', tempDir(), '--api-port', String(port), '--ads-port', '0']);
      expect(code).toBe(1);
      expect(output).toContain(`127.0.0.1:${port}`);
      expect(output).toContain('already in use');
    } finally {
      blocker.close();
    }
  });

  it('says a flag wins over an environment variable, and refuses one port for both listeners, naming both settings', async () => {
    const dataDir = tempDir();
    const proc = await startHeadless(['--data-dir', dataDir, '--api-port', '0'], { MESHDESK_API_PORT: '1', MESHDESK_ADS_PORT: '0' });
    try {
      const described = (await (await fetch(`${proc.apiUrl}/settings/schema`)).json()) as { name: string; source: string; sourceName?: string }[];
      expect(described.find((setting) => setting.name === 'apiServer.port')).toMatchObject({ source: 'command line', sourceName: '--api-port' });
      expect(described.find((setting) => setting.name === 'xds.port')).toMatchObject({ source: 'environment', sourceName: 'MESHDESK_ADS_PORT' });
    } finally {
      await proc.stop();
    }
    const { code, output } = await runHeadlessExpectingFailure(['--data-dir', dataDir, '--api-port', '7000', '--ads-port', '7000']);
    expect(code).toBe(1);
    expect(output).toContain('xds.port (--ads-port) and apiServer.port (--api-port) are both 7000');
  });

  it('refuses to start when the data directory cannot be created, naming it', async () => {
    const file = join(tempDir(), 'not-a-folder');
    writeFileSync(file, 'x');
    const dataDir = join(file, 'data');
    const { code, output } = await runHeadlessExpectingFailure(['--data-dir', dataDir, '--api-port', '0', '--ads-port', '0']);
    expect(code).toBe(1);
    expect(output).toContain(`cannot use data directory ${dataDir}`);
  });

  it('rejects an unknown flag with its usage', async () => {
    const { code, output } = await runHeadlessExpectingFailure(['--verbose']);
    expect(code).toBe(1);
    expect(output).toContain('unknown argument "--verbose"');
    expect(output).toContain('usage: npm run headless');
  });
});
