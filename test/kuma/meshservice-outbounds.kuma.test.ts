// Kuma v2.14.3's MeshService outbound with legacy naming (kuma-cases/meshservice/outbound-meshservice-http,
// the MeshHTTPRoute plugin entry `default-meshservice`): the resources meshdesk's outbound step makes for
// the same input are, field for field as Kuma's JSON prints them, the listener, cluster and endpoints
// of the goldens. As in Kuma's test, the resources carry no computed labels (no zone in the names)
// and no policy applies (Kuma's plugin test runs without MeshTimeout's defaults).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildMeshContext } from '../../src/main/xds/context/build-mesh-context.js';
import { outboundProxyGenerator } from '../../src/main/xds/generate/outbound-proxy-generator.js';
import { testDataplane, testMesh, testMeshService } from '../../src/main/xds/generate/meshservice/test-resources.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, type XdsTypeUrl } from '../../src/main/xds/protocol/type-urls.js';
import { KUMA_CASES_DIR } from '../support/kuma-cases.js';
import { toKumaJson } from './support/xds-leaves.js';

const CASE_DIR = join(KUMA_CASES_DIR, 'meshservice', 'outbound-meshservice-http');

function golden(kind: string): { name: string; resource: Record<string, unknown> }[] {
  const { resources } = parse(readFileSync(join(CASE_DIR, `default-meshservice.${kind}.golden.yaml`), 'utf8')) as {
    resources: { name: string; resource: Record<string, unknown> }[];
  };
  return resources.map(({ name, resource: { '@type': _type, ...rest } }) => ({ name, resource: rest }));
}

const backendInbound = { port: 8084, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http', app: 'backend' } };
const mesh = testMesh('default', { mtls: { enabledBackend: 'builtin', backends: [{ name: 'builtin', type: 'builtin' }] } });
const web = testDataplane('default', 'web-01', {
  networking: {
    address: '192.168.0.2',
    inbound: [{ port: 80, servicePort: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }],
    outbound: [{ address: '10.0.0.1', port: 80, backendRef: { kind: 'MeshService', name: 'backend', port: 80 } }],
  },
});
const context = buildMeshContext(
  mesh,
  [
    web,
    testDataplane('default', 'backend-1', { networking: { address: '192.168.0.4', inbound: [backendInbound] } }),
    testDataplane('default', 'backend-2', { networking: { address: '192.168.0.5', inbound: [backendInbound] } }),
  ],
  {
    destinations: {
      meshServices: [
        testMeshService(
          'default',
          'backend',
          {
            selector: { dataplaneTags: { app: 'backend' } },
            ports: [{ port: 80, targetPort: 8084, appProtocol: 'http' }],
            identities: [{ type: 'ServiceTag', value: 'backend' }],
          },
          { status: { vips: [{ ip: '10.0.0.1' }] } },
        ),
      ],
      meshExternalServices: [],
      meshMultiZoneServices: [],
    },
  },
);
const generated = outboundProxyGenerator.generate(context, { id: 'default.web-01', dataplane: web, kind: 'envoy' });

function meshdesk(typeUrl: XdsTypeUrl) {
  return generated[typeUrl].map(({ name, resource }) => ({ name, resource: toKumaJson(typeUrl, resource) }));
}

function httpConnectionManagerOf(listener: Record<string, unknown>): Record<string, unknown> {
  const [chain] = listener.filterChains as { filters: { typedConfig: Record<string, unknown> }[] }[];
  return chain!.filters[0]!.typedConfig;
}

describe('MeshService outbound, legacy naming (Kuma default-meshservice)', () => {
  it('makes the listener outbound:10.0.0.1:80 with the KRI route configuration and the legacy virtual host', () => {
    // The plugin test's proxy declares one internal address (127.0.0.1/32); meshdesk, as a running
    // kuma-cp, declares kuma-cp's default ipam.knownInternalCIDRs, 127.0.0.1/32 among them
    // (the known difference of every MeshHTTPRoute plugin case, test/kuma/known-differences.ts).
    const [listener] = meshdesk(LISTENER_TYPE_URL);
    const ranges = (manager: Record<string, unknown>) => (manager.internalAddressConfig as { cidrRanges: unknown[] }).cidrRanges;
    const kumaRanges = ranges(httpConnectionManagerOf(golden('listeners')[0]!.resource));
    expect(ranges(httpConnectionManagerOf(listener!.resource))).toEqual(expect.arrayContaining(kumaRanges));
    ranges(httpConnectionManagerOf(listener!.resource)).splice(0, Infinity, ...kumaRanges);
    expect([listener]).toEqual(golden('listeners'));
  });

  it('makes the EDS cluster default_backend___msvc_80 with HTTP/2, the identity SAN and the .ms SNI', () => {
    expect(meshdesk(CLUSTER_TYPE_URL)).toEqual(golden('clusters'));
  });

  it('makes the endpoints of the selected inbounds at their port, without kuma.io/service', () => {
    expect(meshdesk(ENDPOINT_TYPE_URL)).toEqual(golden('endpoints'));
  });
});
