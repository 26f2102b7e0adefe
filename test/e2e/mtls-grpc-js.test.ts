import '../support/grpc-js-xds-rbac.js';
import * as grpc from '@grpc/grpc-js';
import { XdsChannelCredentials } from '@grpc/grpc-js-xds';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Core } from '../../src/main/core.js';
import { GRPC_CERTIFICATES_FOLDER } from '../../src/main/mtls/grpc-certificate-files.js';
import { MESH_CA_FOLDER } from '../../src/main/mtls/mesh-ca-store.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, backendDataplane, clientDataplane, deleteDataplane, grpcBootstrapOf } from '../support/dataplanes.js';
import { echoClient, type EchoClient } from '../support/echo-server.js';
import { eventually } from '../support/eventually.js';
import { registerGrpcXds } from '../support/grpc-xds.js';
import { putResource } from '../support/put-resource.js';
import { allowAllTraffic } from '../support/traffic-permissions.js';
import { freePort, startXdsEchoServer } from '../support/xds-echo-server.js';

// gRPC's own Node xDS client and server, in process, taking their TLS from meshdesk's xDS (gRFC A29/A36).
await registerGrpcXds();

type Mode = 'STRICT' | 'PERMISSIVE';

async function putMesh(core: Core, mtls: object | undefined): Promise<void> {
  await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', ...(mtls && { mtls }) });
}

function builtinMtls(mode: Mode, expiration = '1h') {
  return { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', mode, dpCert: { rotation: { expiration } } }] };
}

/** A core with the echo service served by an xDS-enabled gRPC server, and two clients: one through xDS (mTLS when the mesh says so), one plaintext straight to the server's port. */
async function meshWithEcho(mtls: object | undefined) {
  const core = await startTestCore();
  core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
  await putMesh(core, mtls);
  // These tests are about mTLS, not permissions: every caller may call.
  await allowAllTraffic(core);
  const port = await freePort();
  await applyDataplane(core, backendDataplane('echo-1', port));
  await applyDataplane(core, clientDataplane('client-1'));
  // Each takes the bootstrap a user gets from meshdesk: its Dataplane's token and certificate file watchers inside.
  const server = await startXdsEchoServer('echo-1', port, await grpcBootstrapOf(core, 'echo-1'));
  onTestFinished(() => server.stop());
  const meshClient = echoClient(
    'xds:///echo',
    { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(await grpcBootstrapOf(core, 'client-1')) },
    new XdsChannelCredentials(grpc.credentials.createInsecure()),
  );
  const plaintextClient = echoClient(`127.0.0.1:${port}`);
  onTestFinished(() => {
    meshClient.close();
    plaintextClient.close();
  });
  return { core, meshClient, plaintextClient };
}

function failsWith(client: EchoClient, code: grpc.status) {
  return expect(client.echo('hello', 1000)).rejects.toMatchObject({ code });
}

describe('mesh mTLS with @grpc/grpc-js-xds clients and XdsServer', () => {
  it('STRICT: the call goes over mTLS and the server sees the caller’s SPIFFE identity; a plaintext caller is refused', async () => {
    const { core, meshClient, plaintextClient } = await meshWithEcho(builtinMtls('STRICT'));

    const reply = await eventually(() => meshClient.echo('hello'));
    expect(reply).toBe('echo-1: hello from URI:spiffe://default/client-1, URI:kuma://kuma.io/service/client-1');
    await failsWith(plaintextClient, grpc.status.UNAVAILABLE);

    // The server's own identity is its service's, issued by the mesh CA the client trusts.
    expect(core.xds.identities.status('default.echo-1')).toMatchObject({
      uris: ['spiffe://default/echo', 'kuma://kuma.io/protocol/grpc', 'kuma://kuma.io/service/echo', 'kuma://kuma.io/zone/default'],
    });
  });

  it('PERMISSIVE: a plaintext caller is served; switching to STRICT live refuses it, and off again serves it', async () => {
    const { core, meshClient, plaintextClient } = await meshWithEcho(builtinMtls('PERMISSIVE'));

    expect(await eventually(() => plaintextClient.echo('hello'))).toBe('echo-1: hello from -');
    expect(await eventually(() => meshClient.echo('hello'))).toBe('echo-1: hello from -');

    await putMesh(core, builtinMtls('STRICT'));
    await eventually(() => failsWith(plaintextClient, grpc.status.UNAVAILABLE));
    expect(await eventually(() => meshClient.echo('again'))).toMatch(/^echo-1: again from URI:spiffe:\/\/default\/client-1/);

    await putMesh(core, undefined);
    expect(await eventually(() => plaintextClient.echo('plain'))).toBe('echo-1: plain from -');
    expect(await eventually(() => meshClient.echo('plain'))).toBe('echo-1: plain from -');
  });

  it('deletes a Dataplane’s certificate files and identity with it, and a deleted mesh’s CA keys', async () => {
    const { core, meshClient } = await meshWithEcho(builtinMtls('STRICT'));
    await eventually(() => meshClient.echo('hello'));
    const files = (name: string) => join(core.dataDir, GRPC_CERTIFICATES_FOLDER, 'default', name);
    const caFolder = join(core.dataDir, MESH_CA_FOLDER, 'default');
    expect([existsSync(files('client-1')), existsSync(files('echo-1')), existsSync(caFolder)]).toEqual([true, true, true]);

    await deleteDataplane(core, 'default', 'client-1');
    expect([existsSync(files('client-1')), existsSync(files('echo-1'))]).toEqual([false, true]);
    expect(core.xds.identities.status('default.client-1')).toBeUndefined();

    await deleteDataplane(core, 'default', 'echo-1');
    const response = await fetch(`${core.api.url}/meshes/default`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect([existsSync(join(core.dataDir, GRPC_CERTIFICATES_FOLDER, 'default')), existsSync(caFolder)]).toEqual([false, false]);
  });

  it('loses no call while both sides’ certificates are rotated under a stream of calls', async () => {
    // A lifetime below a minute is refused (resources/cert-lifetime-floor.ts), so the rotations here
    // are the ones a change of the lifetime causes at once; renewal at 4/5 of it is proxy-identities.test.ts's.
    const { core, meshClient } = await meshWithEcho(builtinMtls('STRICT', '1h'));
    await eventually(() => meshClient.echo('warm-up'));
    const serials = () => ['default.echo-1', 'default.client-1'].map((id) => core.xds.identities.status(id)?.serial);
    const rotations = () => Math.min(...['default.echo-1', 'default.client-1'].map((id) => core.xds.identities.status(id)?.rotations ?? 0));
    const first = serials();

    let calls = 0;
    const failures: string[] = [];
    const lifetimes = ['2h', '3h'];
    while (rotations() < 2) {
      if (rotations() === 2 - lifetimes.length) await putMesh(core, builtinMtls('STRICT', lifetimes.shift()!));
      const batch = await Promise.allSettled(Array.from({ length: 5 }, (_, index) => meshClient.echo(`call ${calls + index}`)));
      calls += batch.length;
      for (const result of batch) if (result.status === 'rejected') failures.push(String(result.reason));
    }
    console.log(`mTLS rotation: ${calls} calls across ${rotations()} rotations of both identities, ${failures.length} failed`);
    expect(failures).toEqual([]);
    expect(serials().every((serial, index) => serial !== first[index])).toBe(true);
    // A new caller's handshake with the server, which now serves its renewed files.
    await applyDataplane(core, clientDataplane('client-2'));
    const fresh = echoClient(
      'xds:///echo',
      { 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(await grpcBootstrapOf(core, 'client-2')) },
      new XdsChannelCredentials(grpc.credentials.createInsecure()),
    );
    onTestFinished(() => fresh.close());
    expect(await eventually(() => fresh.echo('fresh'))).toMatch(/^echo-1: fresh from URI:spiffe:\/\/default\/client-2/);
  }, 90_000);
});
