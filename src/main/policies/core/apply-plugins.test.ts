import { describe, expect, it } from 'vitest';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { ResourceGeneratorError } from '../../xds/generate/generator.js';
import { generateProxy, generateProxyResources } from '../../xds/generate/profile.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import { CLUSTER_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { meshTimeoutDescriptor } from '../meshtimeout/descriptor.js';
import type { PluginInput, PolicyPlugin } from './plugin.js';
import { ruleFor } from './rules.js';
import { dataplaneResource, meshResource, policyResource } from './testing/resources.js';

interface TimeoutConf {
  connectionTimeout?: string;
}

/**
 * A plugin as small as a real one can be: it sets each cluster's connect timeout from the `to`
 * rule of the cluster's service, through EnvoyResources (never in place), and says where it came from.
 */
const connectTimeoutPlugin: PolicyPlugin<TimeoutConf> = {
  descriptor: meshTimeoutDescriptor,
  specShape: 'any',
  validate: () => {},
  contextReads: { envoy: { parts: [] }, grpc: { parts: [] } },
  applyEnvoy: ({ rules, resources }: PluginInput<TimeoutConf>) => {
    for (const { name, resource } of resources.list(CLUSTER_TYPE_URL)) {
      const rule = ruleFor(rules.to, { 'kuma.io/service': name });
      if (!rule?.conf.connectionTimeout) continue;
      resources.put(CLUSTER_TYPE_URL, name, { ...resource, connect_timeout: rule.conf.connectionTimeout }, [
        { path: 'connect_timeout', origins: rule.origins },
      ]);
    }
  },
  applyGrpc: ({ unapplied }) => unapplied({ policy: { type: 'MeshTimeout', name: 'slow-backend' }, field: 'spec.to[0].default.connectionTimeout', reason: 'gRPC has no connect timeout per cluster' }),
};

const web = dataplaneResource('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web' } }], { address: '127.0.0.1' });
const withOutbound = { ...web, spec: { networking: { ...web.spec.networking, outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }] } } };
const backend = dataplaneResource('backend-1', [{ port: 9000, tags: { 'kuma.io/service': 'backend' } }], { address: '127.0.0.2' });
const policy = policyResource('MeshTimeout', 'slow-backend', {
  to: [{ targetRef: { kind: 'MeshService', name: 'backend' }, default: { connectionTimeout: '7s' } }],
});
const context = buildMeshContext(meshResource(), [withOutbound, backend], { policies: [policy] });
const proxy: Proxy = { id: 'default.web-1', dataplane: withOutbound, kind: 'envoy' };

describe('generating a proxy with policies', () => {
  it('runs the plugins after the profile, with the rules of their type, and keeps who set what', () => {
    const generated = generateProxy(context, proxy, [connectTimeoutPlugin as PolicyPlugin]);

    const cluster = generated.resources[CLUSTER_TYPE_URL].find(({ name }) => name === 'backend')!.resource;
    expect(cluster.connect_timeout).toBe('7s');
    expect(generated.attributions).toEqual([
      {
        typeUrl: CLUSTER_TYPE_URL,
        resource: 'backend',
        path: 'connect_timeout',
        origins: [{ type: 'MeshTimeout', mesh: 'default', name: 'slow-backend', item: 'spec.to[0]' }],
      },
    ]);
    // The profile's own resource, shared with other proxies, is untouched.
    const before = generateProxyResources(context, proxy)[CLUSTER_TYPE_URL].find(({ name }) => name === 'backend')!.resource;
    expect(before.connect_timeout).not.toBe('7s');
  });

  it('gives a gRPC proxy the plugin gRPC side and reports what it cannot apply', () => {
    const generated = generateProxy(context, { ...proxy, kind: 'grpc' }, [connectTimeoutPlugin as PolicyPlugin]);
    expect(generated.unapplied).toEqual([
      { policy: { type: 'MeshTimeout', name: 'slow-backend' }, field: 'spec.to[0].default.connectionTimeout', reason: 'gRPC has no connect timeout per cluster' },
    ]);
  });

  it('fails the generation naming the plugin and the proxy when a plugin throws', () => {
    const broken: PolicyPlugin = { ...(connectTimeoutPlugin as PolicyPlugin), applyEnvoy: () => { throw new Error('no listener for inbound 8080'); } };
    expect(() => generateProxy(context, proxy, [broken])).toThrow(ResourceGeneratorError);
    expect(() => generateProxy(context, proxy, [broken])).toThrow('generator "policy plugin MeshTimeout" failed for proxy "default.web-1": no listener for inbound 8080');
  });
});
