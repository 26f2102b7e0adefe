import { X509Certificate } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MESH_CA_FOLDER } from '../../src/main/mtls/mesh-ca-store.js';
import { decodeResource } from '../../src/main/xds/protocol/decode.js';
import type { ProtoJson } from '../../src/main/xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, SECRET_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { RawDeltaClient } from '../../src/main/xds/server/testing/raw-delta-client.js';
import { startTestCore } from '../support/core.js';
import { applyDataplane, tokenMetadata } from '../support/dataplanes.js';
import { putResource } from '../support/put-resource.js';

const SECRETS = ['identity_cert:secret:default', 'mesh_ca:secret:default'];

function pemOf(source: unknown): string {
  return Buffer.from((source as { inline_bytes: string }).inline_bytes, 'base64').toString();
}

/** The identity certificate and the CA certificate of a Secret response. */
function certificates(resources: ProtoJson[]) {
  const byName = new Map(resources.map((secret) => [secret.name as string, secret]));
  const identity = byName.get(SECRETS[0]!)!.tls_certificate as Record<string, unknown>;
  const ca = (byName.get(SECRETS[1]!)!.validation_context as Record<string, unknown>).trusted_ca;
  return { identity: new X509Certificate(pemOf(identity.certificate_chain)), ca: new X509Certificate(pemOf(ca)) };
}

describe('mesh mTLS for an Envoy proxy over SDS', () => {
  it('sends its identity and the mesh CA on the ADS stream, and a new identity when the lifetime changes', async () => {
    const core = await startTestCore();
    core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
    const mtls = (expiration: string) => ({ enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin', dpCert: { rotation: { expiration } } }] });
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: mtls('1h') });
    await applyDataplane(core, {
      type: 'Dataplane',
      mesh: 'default',
      name: 'web-1',
      networking: { address: '127.0.0.1', inbound: [{ port: 18080, tags: { 'kuma.io/service': 'web', version: 'v1' } }], outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }] },
    } as { mesh: string; name: string });

    const proxy = new RawAdsClient(core.xds.port, { id: 'default.web-1', metadata: tokenMetadata(core, 'web-1') });
    onTestFinished(() => proxy.close());
    proxy.send(CLUSTER_TYPE_URL);
    const clusters = await proxy.next();
    const backend = clusters.resources.map(decodeResource).find((cluster) => cluster.name === 'backend')!;
    expect(JSON.stringify(backend.transport_socket)).toContain('"identity_cert:secret:default"');
    proxy.ack(clusters);

    // Envoy asks for the secrets its clusters and listeners name.
    proxy.send(SECRET_TYPE_URL, { names: SECRETS });
    const first = await proxy.next();
    expect(first.type_url).toBe(SECRET_TYPE_URL);
    const issued = certificates(first.resources.map(decodeResource));
    expect(issued.identity.checkIssued(issued.ca)).toBe(true);
    expect(issued.identity.verify(issued.ca.publicKey)).toBe(true);
    expect(issued.identity.subjectAltName).toBe('URI:spiffe://default/web, URI:kuma://kuma.io/service/web, URI:kuma://kuma.io/zone/default, URI:kuma://version/v1');
    expect(issued.ca.subject).toBe('O=Kuma\nOU=Mesh\nCN=default');
    proxy.ack(first);

    // Renewed at once for a new lifetime (after 4/5 of it otherwise: proxy-identities.test.ts; a
    // lifetime below a minute is refused): only the Secret type changes, pushed unasked, signed by the same CA.
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', mtls: mtls('2h') });
    const second = await proxy.next();
    expect(second.type_url).toBe(SECRET_TYPE_URL);
    const renewed = certificates(second.resources.map(decodeResource));
    expect(renewed.identity.serialNumber).not.toBe(issued.identity.serialNumber);
    expect(renewed.ca.fingerprint256).toBe(issued.ca.fingerprint256);
    const lifetime = Date.parse(issued.identity.validTo) - Date.parse(issued.identity.validFrom);
    expect(lifetime).toBe(3_600_000 + 10_000); // back-dated by Kuma's allowed clock skew
    expect(core.xds.identities.status('default.web-1')).toMatchObject({ serial: renewed.identity.serialNumber, rotations: 1 });

    // The CA is only in the data directory, readable by its owner alone.
    expect(statSync(join(core.dataDir, MESH_CA_FOLDER, 'default', 'ca-1.key')).mode & 0o777).toBe(0o600);
  });

  it('serves the secrets over delta xDS too, and removes them when mTLS is turned off', async () => {
    const core = await startTestCore();
    core.settings.update({ 'store.cache.expirationTime': '100ms', 'xds.dataplaneConfigurationRefreshInterval': '100ms' });
    const mtls = { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };
    await fetch(`${core.api.url}/meshes/default`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'default', mtls }) });
    await applyDataplane(core, {
      type: 'Dataplane',
      mesh: 'default',
      name: 'web-1',
      networking: { address: '127.0.0.1', inbound: [{ port: 18080, tags: { 'kuma.io/service': 'web' } }] },
    } as { mesh: string; name: string });

    const proxy = new RawDeltaClient(core.xds.port, { id: 'default.web-1', metadata: tokenMetadata(core, 'web-1') });
    onTestFinished(() => proxy.close());
    proxy.send(SECRET_TYPE_URL, { subscribe: SECRETS });
    const first = await proxy.next();
    expect(first.resources.map(({ name }) => name).sort()).toEqual(SECRETS);
    proxy.ack(first);

    await fetch(`${core.api.url}/meshes/default`, { method: 'PUT', body: JSON.stringify({ type: 'Mesh', name: 'default' }) });
    const removed = await proxy.next();
    expect(removed.type_url).toBe(SECRET_TYPE_URL);
    expect([...removed.removed_resources].sort()).toEqual(SECRETS);
  });
});
