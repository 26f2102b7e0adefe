import { status } from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { generateGrpcBootstrap } from '../../src/main/xds/generate/bootstrap.js';
import { applyDataplane, backendDataplane, deleteDataplane } from '../support/dataplanes.js';
import { echoClient, type EchoClient } from '../support/echo-server.js';
import { startEchoMesh } from '../support/echo-mesh.js';
import { eventually } from '../support/eventually.js';
import { registerGrpcXds } from '../support/grpc-xds.js';

// gRPC's own Node xDS client, in process: it resolves xds:/// targets through meshdesk's ADS server.
await registerGrpcXds();

/** Answers from `count` calls in a row, so a round-robin over several backends shows all of them. */
async function answers(client: EchoClient, count: number): Promise<Set<string>> {
  const replies = new Set<string>();
  for (let call = 0; call < count; call++) replies.add((await client.echo('hi', 2000)).split(':')[0]!);
  return replies;
}

describe('proxyless gRPC through @grpc/grpc-js-xds', () => {
  it('calls xds:///echo with generated config, fails over when a backend goes, fails when none is left and recovers', async () => {
    const { core, backends } = await startEchoMesh(['client-1']);

    const bootstrap = generateGrpcBootstrap({
      nodeId: 'default.client-1',
      adsHost: '127.0.0.1',
      adsPort: core.xds.port,
      locality: { region: 'local', zone: 'default' },
    });
    const client = echoClient('xds:///echo', {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
    });
    onTestFinished(() => client.close());

    expect(await client.echo('hello')).toMatch(/^echo-[12]: hello$/);
    await eventually(async () => expect(await answers(client, 6)).toEqual(new Set(['echo-1', 'echo-2'])));

    await deleteDataplane(core, 'default', 'echo-1');
    await eventually(async () => expect(await answers(client, 6)).toEqual(new Set(['echo-2'])));

    await deleteDataplane(core, 'default', 'echo-2');
    await eventually(() => expect(client.echo('nobody home', 1000)).rejects.toMatchObject({ code: status.UNAVAILABLE }));

    await applyDataplane(core, backendDataplane('echo-1', backends[0]!.port));
    await eventually(async () => expect(await client.echo('back')).toBe('echo-1: back'));

    // The client accepted everything it was sent.
    const events = core.xds.timeline.events('default.client-1');
    expect(events.filter((event) => event.kind === 'nack')).toEqual([]);
    expect(new Set(events.filter((event) => event.kind === 'ack').map((event) => event.typeUrl)).size).toBe(4);
  });
});
