import { describe, expect, it } from 'vitest';
import type { DataplaneSpec } from '../../../../shared/resources.js';
import { buildMeshContext } from '../../context/build-mesh-context.js';
import { LISTENER_TYPE_URL } from '../../protocol/type-urls.js';
import { outboundProxyGenerator } from '../outbound-proxy-generator.js';
import { meshServiceOutboundResourcesOf } from './generate.js';
import { testDataplane, testMesh, testMeshService } from './test-resources.js';

const transparent = (address: string): DataplaneSpec => ({
  networking: {
    address,
    inbound: [{ port: 8080, tags: { 'kuma.io/service': 'web' } }],
    outbound: [{ port: 10001, tags: { 'kuma.io/service': 'db' } }],
    transparentProxying: { redirectPortInbound: 15006, redirectPortOutbound: 15001 },
  },
});
const dataplanes = [testDataplane('m', 'web-1', transparent('10.0.0.1')), testDataplane('m', 'web-2', transparent('10.0.0.2'))];
const db = testMeshService('m', 'db', { ports: [{ port: 5432, targetPort: 5432 }] }, { status: { vips: [{ ip: '241.0.0.0' }] } });
const proxy = (index: number) => ({ id: `m.web-${index + 1}`, dataplane: dataplanes[index]!, kind: 'envoy' as const });

describe('the outbound step with MeshServices', () => {
  it('adds nothing in a mesh without MeshServices', () => {
    const context = buildMeshContext(testMesh('m'), dataplanes);
    expect(meshServiceOutboundResourcesOf(context, proxy(0))).toBeUndefined();
  });

  it('gives proxies with the same outbounds the very same resources, the tagged and the MeshService ones', () => {
    const context = buildMeshContext(testMesh('m'), dataplanes, { destinations: { meshServices: [db], meshExternalServices: [], meshMultiZoneServices: [] } });
    const first = outboundProxyGenerator.generate(context, proxy(0));
    expect(first[LISTENER_TYPE_URL].map(({ name }) => name)).toEqual(['outbound:127.0.0.1:10001', 'outbound:241.0.0.0:5432']);
    expect(outboundProxyGenerator.generate(context, proxy(1))).toBe(first);
  });
});
