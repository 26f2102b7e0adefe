import { describe, expect, it } from 'vitest';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { loadGeneratorCase } from './generator-cases.js';
import { goldenCases } from './golden-files.js';
import { generateProxyResources } from './profile.js';

const [outboundCase] = goldenCases('outbound-proxy');
const [grpcCase] = goldenCases('proxyless-grpc');

describe('proxy profiles', () => {
  it('gives an Envoy proxy its inbound resources, then its outbound ones', () => {
    const { context, proxy } = loadGeneratorCase(outboundCase!.inputPath);

    const resources = generateProxyResources(context, proxy);

    expect(resources[LISTENER_TYPE_URL].map(({ name }) => name)).toEqual([
      'inbound:127.0.0.1:18000',
      'outbound:127.0.0.1:10001',
      'outbound:127.0.0.1:10002',
    ]);
    expect(resources[CLUSTER_TYPE_URL].map(({ name }) => name)).toEqual(['localhost:8000', 'redis', 'backend']);
  });

  it('gives clients with equal outbounds the very same lists, made once per context', () => {
    const { context, proxy } = loadGeneratorCase(outboundCase!.inputPath);
    const twin = structuredClone(proxy.dataplane);
    twin.meta.name = 'web-2';

    const [first, second] = [proxy, { ...proxy, id: 'default.web-2', dataplane: twin }].map((each) => generateProxyResources(context, each));

    expect(second![ENDPOINT_TYPE_URL]).toBe(first![ENDPOINT_TYPE_URL]);
    expect(second![LISTENER_TYPE_URL]).toEqual(first![LISTENER_TYPE_URL]);
  });

  it('gives a gRPC client only API listeners and what they point at', () => {
    const { context, proxy } = loadGeneratorCase(grpcCase!.inputPath);

    const resources = generateProxyResources(context, proxy);

    expect(resources[LISTENER_TYPE_URL].map(({ name }) => name)).toEqual(['echo']);
    expect(resources[ROUTE_TYPE_URL].map(({ name }) => name)).toEqual(['echo']);
  });

  it('serves the same Dataplane differently by proxy kind', () => {
    const { context, proxy } = loadGeneratorCase(grpcCase!.inputPath);

    const asEnvoy = generateProxyResources(context, { ...proxy, kind: 'envoy' });

    expect(asEnvoy[LISTENER_TYPE_URL].map(({ name }) => name)).toEqual(['outbound:127.0.0.1:15051']);
  });
});
