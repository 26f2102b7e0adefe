import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import { applyDataplane, backendDataplane, deleteDataplane } from '../support/dataplanes.js';
import { startEchoMesh } from '../support/echo-mesh.js';
import { eventually } from '../support/eventually.js';
import { startPythonEchoClient } from '../support/python-echo-client.js';
import { tempDir } from '../support/temp-dir.js';

describe('proxyless gRPC through C-core (python3-grpcio)', () => {
  it('calls xds:///echo with generated config, fails over, fails when no backend is left and recovers', async () => {
    const { core, backends } = await startEchoMesh(['py-client']);

    const bootstrapFile = join(tempDir(), 'bootstrap.json');
    const bootstrap = generateGrpcBootstrap({
      nodeId: 'default.py-client',
      adsHost: '127.0.0.1',
      adsPort: core.xds.port,
      locality: { region: 'local', zone: 'default' },
    });
    writeFileSync(bootstrapFile, JSON.stringify(bootstrap));
    const client = startPythonEchoClient('xds:///echo', bootstrapFile);
    onTestFinished(() => void client.stop());
    expect(await client.ready()).toEqual({ ready: true });

    const replyFrom = async (): Promise<string> => {
      const result = await client.call('hi');
      if (!result.ok) throw new Error(`call failed: ${result.code} ${result.details}`);
      return result.reply.split(':')[0]!;
    };
    const answers = async (count: number) => {
      const seen = new Set<string>();
      for (let call = 0; call < count; call++) seen.add(await replyFrom());
      return seen;
    };

    await eventually(async () => expect(await answers(6)).toEqual(new Set(['echo-1', 'echo-2'])));

    await deleteDataplane(core, 'default', 'echo-1');
    await eventually(async () => expect(await answers(6)).toEqual(new Set(['echo-2'])));

    await deleteDataplane(core, 'default', 'echo-2');
    await eventually(async () => expect(await client.call('nobody home')).toMatchObject({ ok: false, code: 'UNAVAILABLE' }));

    await applyDataplane(core, backendDataplane('echo-1', backends[0]!.port));
    await eventually(async () => expect(await client.call('back')).toEqual({ ok: true, reply: 'echo-1: back' }));

    const events = core.xds.timeline.events('default.py-client');
    expect(events.filter((event) => event.kind === 'nack')).toEqual([]);
  });
});
