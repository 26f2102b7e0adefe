import { expect, onTestFinished, test } from 'vitest';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { AdsServer } from './ads-server.js';
import { SnapshotCache } from './snapshot-cache.js';
import { echoSnapshot } from './testing/fixtures.js';
import { RecordingCallbacks } from './testing/recording-callbacks.js';
import { echoClient, startEchoServer } from '../../../../test/support/echo-server.js';
import { registerGrpcXds } from '../../../../test/support/grpc-xds.js';

/**
 * Smoke test with a client we did not write: gRPC's own xDS client (@grpc/grpc-js-xds) resolves
 * `xds:///echo` through our ADS server to a real gRPC echo server on loopback.
 */

await registerGrpcXds();

test('a unary call through @grpc/grpc-js-xds reaches the echo server with configuration from our ADS server', async () => {
  const echo = await startEchoServer();
  onTestFinished(() => echo.stop());
  const echoPort = echo.port;
  const snapshots = new SnapshotCache();
  snapshots.setSnapshot('default.client', echoSnapshot('v1', echoPort));
  const recorder = new RecordingCallbacks();
  const ads = new AdsServer({ snapshots, callbacks: [recorder] });
  const adsPort = await ads.start({ port: 0 });
  onTestFinished(() => ads.stop());

  const bootstrap = {
    node: { id: 'default.client', locality: { region: 'local', zone: 'zone-a' } },
    xds_servers: [{ server_uri: `127.0.0.1:${adsPort}`, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
  };
  const client = echoClient('xds:///echo', {
    'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
  });
  onTestFinished(() => client.close());

  expect(await client.echo('hello')).toBe('echo: hello');

  // The client accepted every type it was sent.
  const acked = await Promise.all(
    [LISTENER_TYPE_URL, ROUTE_TYPE_URL, CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL].map((typeUrl) =>
      recorder.waitFor('request', ({ classification }) => classification.typeUrl === typeUrl && classification.kind === 'ack'),
    ),
  );
  expect(acked.map((event) => event.classification.version)).toEqual(['v1', 'v1', 'v1', 'v1']);
  expect(recorder.of('request').filter((event) => event.classification.kind === 'nack')).toEqual([]);
});
