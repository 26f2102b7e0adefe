import '../support/grpc-js-xds-rbac.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { XdsChannelCredentials } from '@grpc/grpc-js-xds';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane, grpcBootstrapOf } from '../support/dataplanes.js';
import { echoClient } from '../support/echo-server.js';
import { eventually } from '../support/eventually.js';
import { registerGrpcXds } from '../support/grpc-xds.js';
import { startPythonEchoClient } from '../support/python-echo-client.js';
import { startPythonXdsEchoServer } from '../support/python-xds-echo-server.js';
import { tempDir } from '../support/temp-dir.js';
import { allowAllTraffic } from '../support/traffic-permissions.js';
import { freePort, startXdsEchoServer } from '../support/xds-echo-server.js';

await registerGrpcXds();

/**
 * A core whose default mesh has STRICT mTLS with the builtin CA, a server Dataplane on a free port
 * and a client Dataplane, and the gRPC bootstrap of either (with its certificate file watchers).
 */
async function strictMtlsMesh(server: string, client: string) {
  const core = await startTestCore();
  core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
  const mtls = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', mode: 'STRICT' }] };
  const turnedOn = await fetch(`${core.api.url}/meshes/default`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'default', mtls }) });
  expect(turnedOn.ok).toBe(true);
  // These tests are about mTLS, not permissions: every caller may call.
  await allowAllTraffic(core);
  const port = await freePort();
  await applyDataplane(core, backendDataplane(server, port));
  await applyDataplane(core, clientDataplane(client));
  // The bootstrap a user gets from meshdesk (its token and certificate file watchers inside).
  const bootstrapOf = (name: string) => grpcBootstrapOf(core, name);
  return { core, port, bootstrapOf };
}

describe('mesh mTLS between C-core (python3-grpcio) and grpc-js-xds', () => {
  it('calls over mTLS with certificates from its bootstrap’s file watchers; the server sees its SPIFFE identity', async () => {
    const { port, bootstrapOf } = await strictMtlsMesh('echo-1', 'py-client');
    const server = await startXdsEchoServer('echo-1', port, await bootstrapOf('echo-1'));
    onTestFinished(() => server.stop());

    const bootstrapFile = join(tempDir(), 'bootstrap.json');
    writeFileSync(bootstrapFile, JSON.stringify(await bootstrapOf('py-client')));
    const client = startPythonEchoClient('xds:///echo', bootstrapFile, [], { xdsCredentials: true });
    onTestFinished(() => client.stop());
    await client.ready();
    const call = async (text: string) => {
      const result = await client.call(text);
      if (!result.ok) throw new Error(`${result.code}: ${result.details}`);
      return result.reply;
    };

    expect(await eventually(() => call('hello'))).toBe('echo-1: hello from URI:spiffe://default/py-client, URI:kuma://kuma.io/service/py-client');
  });

  it('serves a grpc-js-xds client over mTLS from a C-core xDS server (python3-grpcio), which sees the caller’s SPIFFE identity', async () => {
    const { port, bootstrapOf } = await strictMtlsMesh('py-echo', 'client-1');
    const server = await startPythonXdsEchoServer('py-echo', port, await bootstrapOf('py-echo'));
    onTestFinished(() => server.stop());

    const client = echoClient(
      'xds:///echo',
      { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(await bootstrapOf('client-1')) },
      new XdsChannelCredentials(grpc.credentials.createInsecure()),
    );
    onTestFinished(() => client.close());
    const reply = await eventually(() => client.echo('hello', 2000)).catch((error: unknown) => {
      throw new Error(`${String(error)}\npython server:\n${server.stderr()}`);
    });
    expect(reply).toBe('py-echo: hello from URI:spiffe://default/client-1, URI:kuma://kuma.io/service/client-1');
  });
});
