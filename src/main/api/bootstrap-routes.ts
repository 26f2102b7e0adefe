import type { DataplaneResource } from '../../shared/resources.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { bootstrapToYaml, generateEnvoyBootstrap, generateGrpcBootstrap } from '../xds/generate/bootstrap.js';
import { ApiError } from './api-error.js';
import type { AdsAddress } from './inspection-routes.js';
import type { Reply, Route } from './router.js';

export interface BootstrapDependencies {
  manager: ReadOnlyResourceManager;
  adsAddress: AdsAddress;
}

type ProxyType = 'envoy' | 'grpc';
type Format = 'yaml' | 'json';

/**
 * `GET /meshes/{mesh}/dataplanes/{name}/bootstrap`: the bootstrap that connects a proxy to the
 * running ADS server as this stored Dataplane (`envoy -c bootstrap.yaml` needs nothing else).
 * A stored Dataplane does not say which kind of proxy will run it, so the caller does:
 * - `?proxyType=envoy` (default): Envoy's bootstrap, YAML unless `?format=json`;
 * - `?proxyType=grpc`: the gRPC xDS bootstrap (the GRPC_XDS_BOOTSTRAP file), JSON only.
 */
export function bootstrapRoutes(deps: BootstrapDependencies): Route[] {
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/dataplanes/:name/bootstrap',
      handler: async ({ params, query }) => {
        const dataplane = await deps.manager.get('Dataplane', { mesh: params.mesh!, name: params.name! });
        return bootstrapReply(dataplane, query, deps.adsAddress);
      },
    },
  ];
}

/** The bootstrap of `dataplane` in the kind and format the query asks for (see bootstrapRoutes). */
export function bootstrapReply(dataplane: DataplaneResource, query: URLSearchParams, adsAddress: AdsAddress): Reply {
  const proxyType = choice<ProxyType>(query, 'proxyType', ['envoy', 'grpc']);
  const format = choice<Format>(query, 'format', proxyType === 'grpc' ? ['json'] : ['yaml', 'json']);
  const { host, port } = dialable(adsAddress);
  if (proxyType === 'grpc') {
    const nodeId = `${dataplane.meta.mesh}.${dataplane.meta.name}`;
    return { json: generateGrpcBootstrap({ nodeId, adsHost: host, adsPort: port, locality: {}, dataplane }) };
  }
  const bootstrap = generateEnvoyBootstrap({ dataplane, adsHost: host, adsPort: port });
  return format === 'json' ? { json: bootstrap } : { text: bootstrapToYaml(bootstrap), contentType: 'application/yaml' };
}

/** A query parameter from a fixed list; absent means the first. */
function choice<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T {
  const value = query.get(name);
  if (value === null) return allowed[0]!;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const context = name === 'format' && allowed.length === 1 ? ' (the gRPC bootstrap is a JSON file)' : '';
  throw new ApiError(400, 'Bad request', `${name} must be ${allowed.map((each) => `"${each}"`).join(' or ')}${context}, got "${value}"`);
}

/** A server bound to every interface is reached on loopback: a bootstrap needs an address to dial. */
function dialable({ host, port }: AdsAddress): AdsAddress {
  if (host === '0.0.0.0' || host === '') return { host: '127.0.0.1', port };
  if (host === '::' || host === '[::]') return { host: '::1', port };
  return { host, port };
}
