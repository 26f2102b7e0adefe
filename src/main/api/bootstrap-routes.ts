import type { DataplaneResource } from '../../shared/resources.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { DataplaneTokens } from '../security/dataplane-tokens.js';
import { storedMesh, tokenRequirement, type TokenMode } from '../security/token-requirement.js';
import { grpcCertificateFiles } from '../mtls/grpc-certificate-files.js';
import { dialableAddress } from '../net/dialable-address.js';
import { bootstrapToYaml, generateEnvoyBootstrap, generateGrpcBootstrap, knownDataplane } from '../xds/generate/bootstrap.js';
import { XDS_PROTOCOLS } from '../xds/protocol/ads-service.js';
import { ApiError } from './api-error.js';
import type { AdsAddress } from './inspection-routes.js';
import type { Reply, Route } from './router.js';

export interface BootstrapDependencies {
  manager: ReadOnlyResourceManager;
  adsAddress: AdsAddress;
  dataplaneTokens: DataplaneTokens;
  /** `xds.dataplaneTokens` now: whether a bootstrap without its token would be refused. */
  tokenMode: () => TokenMode;
  /** Where gRPC proxies' certificate files are written, which their bootstrap names. */
  dataDir: string;
}

type ProxyType = 'envoy' | 'grpc';
type Format = 'yaml' | 'json';

/**
 * `GET /meshes/{mesh}/dataplanes/{name}/bootstrap`: the bootstrap that connects a proxy to the
 * running ADS server as this stored Dataplane (`envoy -c bootstrap.yaml` needs nothing else).
 * A stored Dataplane does not say which kind of proxy will run it, so the caller does:
 * - `?proxyType=envoy` (default): Envoy's bootstrap, YAML unless `?format=json`;
 * - `?proxyType=grpc`: the gRPC xDS bootstrap (the GRPC_XDS_BOOTSTRAP file), JSON only;
 * - `?xdsProtocol=sotw` (default) or `delta`: the ADS variant Envoy speaks (`api_type` GRPC or
 *   DELTA_GRPC); gRPC's own xDS clients speak State of the World only;
 * - the Dataplane's token goes into the node metadata, so that the proxy is let in wherever
 *   `xds.dataplaneTokens` requires one (by default: meshes with mTLS), now or after mTLS is turned on;
 *   `?token=…` puts that one instead. It must be the Dataplane's token now: a stale one is refused
 *   here rather than by the ADS server once the proxy runs (400), and so is a bootstrap that
 *   would be refused for its revoked token (409).
 */
export function bootstrapRoutes(deps: BootstrapDependencies): Route[] {
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/dataplanes/:name/bootstrap',
      handler: async ({ params, query }) => {
        const dataplane = await deps.manager.get('Dataplane', { mesh: params.mesh!, name: params.name! });
        return bootstrapReply(dataplane, query, deps);
      },
    },
  ];
}

/**
 * The bootstrap of `dataplane` in the kind and format the query asks for (see bootstrapRoutes).
 * Envoy's admin port is the Dataplane's `networking.admin.port`, or else one no known Dataplane uses.
 */
export async function bootstrapReply(dataplane: DataplaneResource, query: URLSearchParams, deps: BootstrapDependencies): Promise<Reply> {
  const proxyType = choice<ProxyType>(query, 'proxyType', ['envoy', 'grpc']);
  const format = choice<Format>(query, 'format', proxyType === 'grpc' ? ['json'] : ['yaml', 'json']);
  const xdsProtocol = choice(query, 'xdsProtocol', proxyType === 'grpc' ? ['sotw'] : XDS_PROTOCOLS);
  const token = issuedToken(dataplane, query, deps.dataplaneTokens) ?? (await currentToken(dataplane, deps));
  const { host, port } = dialableAddress(deps.adsAddress);
  if (proxyType === 'grpc') {
    const nodeId = `${dataplane.meta.mesh}.${dataplane.meta.name}`;
    const { mesh, name } = dataplane.meta;
    const certificates = { mesh, files: grpcCertificateFiles(deps.dataDir, mesh, name) };
    return { json: generateGrpcBootstrap({ nodeId, adsHost: host, adsPort: port, locality: {}, dataplane, token, certificates }) };
  }
  const knownDataplanes = (await deps.manager.list('Dataplane')).map(knownDataplane);
  const bootstrap = generateEnvoyBootstrap({ dataplane, adsHost: host, adsPort: port, token, knownDataplanes, xdsProtocol });
  return format === 'json' ? { json: bootstrap } : { text: bootstrapToYaml(bootstrap), contentType: 'application/yaml' };
}

/** `?token=`, checked against the token issued for the Dataplane; undefined when absent. */
function issuedToken(dataplane: DataplaneResource, query: URLSearchParams, tokens: BootstrapDependencies['dataplaneTokens']): string | undefined {
  const token = query.get('token');
  if (token === null) return undefined;
  const check = tokens.check({ mesh: dataplane.meta.mesh, name: dataplane.meta.name }, token);
  if (!check.valid) {
    throw new ApiError(400, 'Bad request', 'the token cannot go into the bootstrap', [{ field: 'token', message: check.reason.replace(/^its token/, 'the token') }]);
  }
  return token;
}

/**
 * The Dataplane's token now. Without one (revoked, or issued by an earlier meshdesk, which kept
 * only its hash), a bootstrap is still given where none is required, and refused where the proxy
 * would be refused with it.
 */
async function currentToken(dataplane: DataplaneResource, deps: BootstrapDependencies): Promise<string | undefined> {
  const { mesh, name } = dataplane.meta;
  const token = deps.dataplaneTokens.tokenFor({ mesh, name });
  if (token !== undefined) return token;
  const requirement = tokenRequirement(deps.tokenMode(), await storedMesh(deps.manager, mesh));
  if (requirement === undefined) return undefined;
  throw new ApiError(
    409,
    'Conflict',
    `the bootstrap of Dataplane "${name}" in mesh "${mesh}" needs its token (${requirement}), and its token was revoked or cannot be shown again: ` +
      `issue a new one with POST /meshes/${mesh}/dataplanes/${name}/token`,
  );
}

/** A query parameter from a fixed list; absent means the first. */
function choice<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T {
  const value = query.get(name);
  if (value === null) return allowed[0]!;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const context = allowed.length > 1 ? '' : name === 'format' ? ' (the gRPC bootstrap is a JSON file)' : ' (gRPC xDS clients speak State of the World only)';
  throw new ApiError(400, 'Bad request', `${name} must be ${allowed.map((each) => `"${each}"`).join(' or ')}${context}, got "${value}"`);
}
