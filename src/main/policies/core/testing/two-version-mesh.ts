// A mesh for route policy tests: a client proxy with an outbound to `echo`, whose endpoints are two
// versions (`version: v1`, `v2`) on loopback ports, and the rules to hand a plugin.
import type { PolicyOrigin } from '../../../../shared/policy-types.js';
import type { DataplaneResource, MeshResource } from '../../../../shared/resources.js';
import { validateResource } from '../../../resources/validate.js';
import { buildMeshContext } from '../../../xds/context/build-mesh-context.js';
import { generateProxyResources } from '../../../xds/generate/profile.js';
import type { ProxyKind } from '../../../../shared/proxy-kind.js';
import type { Proxy } from '../../../xds/generate/proxy.js';
import { EnvoyResources } from '../envoy-resources.js';
import { emptyProxyRules, type ProxyRules } from '../rules.js';

const TIME = '2026-01-01T00:00:00.000Z';

function stored<T>(input: Record<string, unknown>, type: 'Mesh' | 'Dataplane'): T {
  const read = validateResource(input, { type });
  return { type, meta: { mesh: read.mesh, name: read.name, version: 1, creationTime: TIME, modificationTime: TIME, labels: read.labels }, spec: read.spec } as T;
}

function echoDataplane(version: string, port: number): DataplaneResource {
  return stored(
    {
      type: 'Dataplane',
      mesh: 'default',
      name: `echo-${version}`,
      networking: { address: '127.0.0.1', inbound: [{ port, tags: { 'kuma.io/service': 'echo', 'kuma.io/protocol': 'grpc', version } }] },
    },
    'Dataplane',
  );
}

/** The client proxy (of `kind`) and its mesh context, with echo v1 and v2 listening on these ports. */
export function twoVersionMesh(v1Port: number, v2Port: number, kind: ProxyKind = 'grpc') {
  const mesh = stored<MeshResource>({ type: 'Mesh', name: 'default' }, 'Mesh');
  const client = stored<DataplaneResource>(
    {
      type: 'Dataplane',
      mesh: 'default',
      name: 'client',
      networking: { address: '127.0.0.1', inbound: [{ port: 1, tags: { 'kuma.io/service': 'client' } }], outbound: [{ port: 2, tags: { 'kuma.io/service': 'echo' } }] },
    },
    'Dataplane',
  );
  const context = buildMeshContext(mesh, [client, echoDataplane('v1', v1Port), echoDataplane('v2', v2Port)]);
  const proxy: Proxy = { id: 'default.client', dataplane: client, kind };
  return { context, proxy, resources: new EnvoyResources(generateProxyResources(context, proxy), context) };
}

/** Rules with one `to` rule for the `echo` destination, from `origin`. */
export function echoRules<Conf>(conf: Conf, origin: PolicyOrigin): ProxyRules<Conf> {
  return { ...emptyProxyRules<Conf>(), to: [{ subset: [{ key: 'kuma.io/service', value: 'echo' }], conf, origins: [origin] }] };
}
