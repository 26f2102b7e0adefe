import * as grpc from '@grpc/grpc-js';
import { statSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { parse } from 'yaml';
import { CONTROL_PLANE_CERT_FILE, CONTROL_PLANE_KEY_FILE } from '../src/main/tls/control-plane-cert.js';
import { DATAPLANE_METADATA_KEY, DATAPLANE_TOKEN_METADATA_KEY } from '../src/main/xds/generate/bootstrap.js';
import { encodeMessage } from '../src/main/xds/protocol/encode.js';
import { CLUSTER_TYPE_URL } from '../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../src/main/xds/server/testing/raw-ads-client.js';
import { rawRequest, startTestCore, type RawResponse } from './support/core.js';
import { tempDir } from './support/temp-dir.js';

/**
 * Issue 13 item 5: Kuma's `kuma-dp run --cp-address https://127.0.0.1:<ads port> --ca-cert-file
 * <meshdesk's cert>` works. kuma-dp first POSTs its bootstrap request over TLS to the ADS port,
 * then runs Envoy with the answer, which dials the same port over TLS; plaintext gRPC keeps
 * working there. The request bodies below have the shape of Kuma's BootstrapRequest
 * (pkg/xds/bootstrap/types/bootstrap_request.go, as kuma-dp 2.14 sends it).
 */

const DATAPLANE = {
  type: 'Dataplane',
  mesh: 'default',
  name: 'backend-1',
  networking: { address: '127.0.0.1', inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'backend' } }] },
};

function kumaDpRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mesh: 'default',
    name: 'backend-1',
    proxyType: 'dataplane',
    dataplaneToken: '',
    dataplaneTokenPath: '',
    dataplaneResource: JSON.stringify(DATAPLANE),
    version: {
      kumaDp: { version: '2.14.3', gitTag: 'v2.14.3', gitCommit: 'abcdef0', buildDate: '2025-06-01T00:00:00Z' },
      envoy: { version: '1.34.1', build: 'hash/1.34.1/Clean/RELEASE/BoringSSL', kumaDpCompatible: true },
    },
    caCert: '',
    dynamicMetadata: {},
    dnsPort: 15053,
    readinessPort: 9902,
    appProbeProxyDisabled: false,
    operatingSystem: 'linux',
    features: ['feature-tcp-accesslog-via-named-pipe', 'feature-transparent-proxy-in-dataplane-metadata', 'feature-reuse-port'],
    resources: { maxHeapSizeBytes: 0 },
    workdir: '/tmp/kuma-dp',
    metricsResources: { socketPath: '', certPath: '', keyPath: '' },
    systemCaPath: '',
    ...overrides,
  };
}

/** kuma-dp's HTTP call: POST /bootstrap over TLS, trusting only `ca`, `accept: application/json`. */
function postBootstrap(port: number, ca: string, body: unknown, headers: Record<string, string> = { accept: 'application/json' }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const req = httpsRequest(
      { host: '127.0.0.1', port, path: '/bootstrap', method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let data = '';
        res.on('data', (chunk) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** A decoded bootstrap, read field by field. */
type Yaml = any;

function decodedBootstrap(response: RawResponse): Yaml {
  expect(response.status, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('application/json');
  const json = JSON.parse(response.body);
  expect(json.kumaSidecarConfiguration).toEqual({
    networking: { isUsingTransparentProxy: false, corefileTemplate: null, address: '127.0.0.1' },
    metrics: { aggregate: [] },
  });
  return parse(Buffer.from(json.bootstrap, 'base64').toString('utf8'));
}

describe('POST /bootstrap on the ADS port, over TLS', () => {
  test("answers Kuma's response shape: a bootstrap dialing the same port over TLS, verified with the CA kuma-dp was given", async () => {
    const core = await startTestCore();
    const ca = core.controlPlaneCert.cert;
    const bootstrap = decodedBootstrap(await postBootstrap(core.xds.port, ca, kumaDpRequest({ caCert: ca })));

    expect(bootstrap.node.id).toBe('default.backend-1');
    expect(bootstrap.node.cluster).toBe('backend');
    expect(JSON.parse(bootstrap.node.metadata[DATAPLANE_METADATA_KEY])).toMatchObject({ type: 'Dataplane', mesh: 'default', name: 'backend-1' });
    expect(bootstrap.node.metadata.features).toEqual(kumaDpRequest().features);
    // Where kuma-dp serves the socket MeshAccessLog's Tcp backends log through, as Kuma's bootstrap says it.
    expect(bootstrap.node.metadata.workdir).toBe('/tmp/kuma-dp');
    expect(bootstrap.dynamic_resources.ads_config.api_type).toBe('GRPC');
    const [adsCluster] = bootstrap.static_resources.clusters;
    expect(adsCluster.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address).toEqual({ address: '127.0.0.1', port_value: core.xds.port });
    expect(adsCluster.transport_socket.typed_config).toMatchObject({
      sni: '127.0.0.1',
      common_tls_context: { tls_params: { tls_minimum_protocol_version: 'TLSv1_2' }, validation_context_sds_secret_config: { name: 'cp_validation_ctx' } },
    });
    expect(bootstrap.static_resources.secrets).toEqual([
      {
        name: 'cp_validation_ctx',
        validation_context: {
          match_typed_subject_alt_names: [
            { san_type: 'DNS', matcher: { exact: '127.0.0.1' } },
            { san_type: 'IP_ADDRESS', matcher: { exact: '127.0.0.1' } },
          ],
          trusted_ca: { inline_bytes: Buffer.from(ca).toString('base64') },
        },
      },
    ]);
    // Every field is one Envoy's Bootstrap proto has (the encoder refuses unknown ones).
    expect(encodeMessage('envoy.config.bootstrap.v3.Bootstrap', bootstrap).length).toBeGreaterThan(0);
  });

  test('kuma-dp asking for delta xDS (feature-delta-grpc) gets DELTA_GRPC', async () => {
    const core = await startTestCore();
    const features = ['feature-delta-grpc', 'feature-reuse-port'];
    const bootstrap = decodedBootstrap(await postBootstrap(core.xds.port, core.controlPlaneCert.cert, kumaDpRequest({ features })));
    expect(bootstrap.dynamic_resources.ads_config.api_type).toBe('DELTA_GRPC');
  });

  test('without accept: application/json, the bootstrap YAML itself (Kuma backwards compatibility)', async () => {
    const core = await startTestCore();
    const response = await postBootstrap(core.xds.port, core.controlPlaneCert.cert, kumaDpRequest(), {});
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/x-yaml');
    expect(parse(response.body).node.id).toBe('default.backend-1');
  });

  test('a Dataplane neither sent nor stored is 404 with an empty body (kuma-dp retries); a stored one is served', async () => {
    const core = await startTestCore();
    const ca = core.controlPlaneCert.cert;
    const missing = await postBootstrap(core.xds.port, ca, kumaDpRequest({ dataplaneResource: '' }));
    expect(missing).toMatchObject({ status: 404, body: '' });

    await core.manager.create({ type: 'Dataplane', mesh: 'default', name: 'backend-1', labels: {}, spec: { networking: DATAPLANE.networking } });
    const bootstrap = decodedBootstrap(await postBootstrap(core.xds.port, ca, kumaDpRequest({ dataplaneResource: '' })));
    expect(bootstrap.node.id).toBe('default.backend-1');
  });

  test("Kuma's error statuses: 400 for a body that is not JSON, 422 with the reason for an invalid request", async () => {
    const core = await startTestCore();
    const ca = core.controlPlaneCert.cert;
    expect(await postBootstrap(core.xds.port, ca, '{not json')).toMatchObject({ status: 400, body: '' });

    const invalidDataplane = await postBootstrap(core.xds.port, ca, kumaDpRequest({
      dataplaneResource: JSON.stringify({ ...DATAPLANE, networking: { address: '127.0.0.1', inbound: [{ port: 70000, tags: { 'kuma.io/service': 'backend' } }] } }),
    }));
    expect(invalidDataplane.status).toBe(422);
    expect(invalidDataplane.body).toContain('dataplaneResource.networking.inbound[0].port');

    const ingress = await postBootstrap(core.xds.port, ca, kumaDpRequest({ proxyType: 'ingress' }));
    expect(ingress.status).toBe(422);
    expect(ingress.body).toContain('proxyType: "ingress" is not supported');

    const otherName = await postBootstrap(core.xds.port, ca, kumaDpRequest({ name: 'backend-2' }));
    expect(otherName.status).toBe(422);
    expect(otherName.body).toContain(`name: "backend-2" does not match dataplaneResource's name "backend-1"`);
  });

  test('with xds.dataplaneTokens enabled, the token is required and checked; a good one goes into the node metadata', async () => {
    const core = await startTestCore();
    const ca = core.controlPlaneCert.cert;
    core.settings.update({ 'xds.dataplaneTokens': 'enabled' });
    const missing = await postBootstrap(core.xds.port, ca, kumaDpRequest());
    expect(missing.status).toBe(422);
    expect(missing.body).toContain('Dataplane Token is required');

    const { token } = core.xds.dataplaneTokens.issue({ mesh: 'default', name: 'backend-1' });
    const wrong = await postBootstrap(core.xds.port, ca, kumaDpRequest({ dataplaneToken: 'not-the-token' }));
    expect(wrong.status).toBe(422);
    expect(wrong.body).toContain('is not the one issued');

    const bootstrap = decodedBootstrap(await postBootstrap(core.xds.port, ca, kumaDpRequest({ dataplaneToken: `${token}\n` })));
    expect(bootstrap.node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(token);
  });

  test('in a mesh with mTLS (tokens required there by default), kuma-dp needs the token GET …/token saves, and gets a bootstrap carrying it', async () => {
    const core = await startTestCore();
    const ca = core.controlPlaneCert.cert;
    const mtls = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };
    expect((await fetch(`${core.api.url}/meshes/default`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'default', mtls }) })).status).toBe(200);

    const missing = await postBootstrap(core.xds.port, ca, kumaDpRequest());
    expect(missing.status).toBe(422);
    expect(missing.body).toBe(
      'Dataplane Token is required (mesh "default" has mTLS on, so its proxies are sent private keys (xds.dataplaneTokens: mtls-meshes)). ' +
        "Save it with GET /meshes/default/dataplanes/backend-1/token on meshdesk's API (curl -o token …) and provide it via --dataplane-token-file=/path/file argument to Kuma DP",
    );

    const tokenFile = await (await fetch(`${core.api.url}/meshes/default/dataplanes/backend-1/token`)).text();
    const bootstrap = decodedBootstrap(await postBootstrap(core.xds.port, ca, kumaDpRequest({ dataplaneToken: tokenFile })));
    expect(bootstrap.node.metadata[DATAPLANE_TOKEN_METADATA_KEY]).toBe(tokenFile.trim());
  });

  test('a host the certificate does not name is refused with 400 and the SANs it has', async () => {
    const core = await startTestCore();
    const response = await new Promise<RawResponse>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port: core.xds.port, path: '/bootstrap', method: 'POST', ca: core.controlPlaneCert.cert, agent: false, headers: { host: 'cp.example.com:5678' }, checkServerIdentity: () => undefined },
        (res) => {
          let data = '';
          res.on('data', (chunk) => (data += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(kumaDpRequest()));
    });
    expect(response.status).toBe(400);
    expect(response.body).toContain('"cp.example.com"');
    expect(response.body).toContain('DNS:localhost');
  });
});

describe('one port for plaintext and TLS gRPC', () => {
  test("kuma-dp's Envoy: ADS over TLS with the bootstrap's node registers the Dataplane and gets configuration", async () => {
    const core = await startTestCore();
    const ca = core.controlPlaneCert.cert;
    const bootstrap = decodedBootstrap(await postBootstrap(core.xds.port, ca, kumaDpRequest()));
    const secure = new RawAdsClient(core.xds.port, bootstrap.node, { credentials: grpc.credentials.createSsl(Buffer.from(ca)) });
    onTestFinished(() => secure.close());
    secure.send(CLUSTER_TYPE_URL);
    const clusters = await secure.next();
    expect(clusters.type_url).toBe(CLUSTER_TYPE_URL);
    expect(clusters.resources.length).toBeGreaterThan(0);
    expect((await core.manager.get('Dataplane', { mesh: 'default', name: 'backend-1' })).spec.networking.address).toBe('127.0.0.1');
  });

  test('a plaintext ADS client on the same port still gets configuration', async () => {
    const core = await startTestCore();
    await core.manager.create({ type: 'Dataplane', mesh: 'default', name: 'backend-1', labels: {}, spec: { networking: DATAPLANE.networking } });
    const plain = new RawAdsClient(core.xds.port, { id: 'default.backend-1' });
    onTestFinished(() => plain.close());
    plain.send(CLUSTER_TYPE_URL);
    expect((await plain.next()).resources.length).toBeGreaterThan(0);
  });

  test('a TLS client that does not trust the certificate is refused, and the port keeps serving', async () => {
    const core = await startTestCore();
    const untrusting = postBootstrap(core.xds.port, '', kumaDpRequest());
    await expect(untrusting).rejects.toThrow(/self[- ]signed/);
    expect((await postBootstrap(core.xds.port, core.controlPlaneCert.cert, kumaDpRequest())).status).toBe(200);
  });
});

describe("meshdesk's certificate for the ADS port", () => {
  test('is a CA for localhost and loopback, created once with a private key file, and reused after a restart', async () => {
    const dataDir = tempDir();
    const first = await startTestCore(dataDir);
    const cert = first.controlPlaneCert.cert;
    expect(first.controlPlaneCert.certFile).toBe(join(dataDir, CONTROL_PLANE_CERT_FILE));
    expect(statSync(join(dataDir, CONTROL_PLANE_KEY_FILE)).mode & 0o777).toBe(0o600);
    const { X509Certificate } = await import('node:crypto');
    const parsed = new X509Certificate(cert);
    expect(parsed.ca).toBe(true);
    expect(parsed.checkHost('localhost')).toBe('localhost');
    expect(parsed.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(parsed.checkIP('::1')).toBe('::1');
    await first.close();

    const second = await startTestCore(dataDir);
    expect(second.controlPlaneCert.cert).toBe(cert);
  });

  test('GET /kuma-dp gives the command line and GET /kuma-dp/ca.crt the certificate', async () => {
    const core = await startTestCore();
    const info = JSON.parse((await rawRequest(`${core.api.url}/kuma-dp`)).body);
    expect(info.command).toBe(`kuma-dp run --cp-address https://127.0.0.1:${core.xds.port} --dataplane-file dp.yaml --ca-cert-file ${core.controlPlaneCert.certFile}`);
    const pem = await rawRequest(`${core.api.url}/kuma-dp/ca.crt`);
    expect(pem.status).toBe(200);
    expect(pem.headers['content-type']).toContain('application/x-pem-file');
    expect(pem.body).toBe(core.controlPlaneCert.cert);
  });
});
