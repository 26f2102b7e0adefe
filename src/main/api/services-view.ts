// The services of a mesh as the Services view shows them: read from the MeshContext proxies are
// generated from (endpoints, MeshServices, the policies' rules) and the proxies' connection states.
import type { ProxyStatus } from '../../shared/api-types.js';
import type { MeshServicePort, MeshServiceStatus } from '../../shared/meshservice-types.js';
import type { PermissionDecision } from '../../shared/permission-types.js';
import { SERVICE_TAG, type DataplaneResource, type Outbound, type Resource, type Tags } from '../../shared/resources.js';
import type {
  EdgePermission,
  EdgePolicy,
  RouteSplit,
  RouteSplitRule,
  ServiceEdge,
  ServiceEndpoint,
  ServiceSummary,
  ServicesView,
} from '../../shared/services-types.js';
import { inboundServesPort, isHealthyInbound, selectedDataplanes } from '../meshservice/match.js';
import { vipsOf } from '../meshservice/vip-allocator.js';
import { meshMtls } from '../mtls/mesh-mtls.js';
import { identityTags } from '../mtls/proxy-identities.js';
import type { BackendRef } from '../policies/core/backend-ref.js';
import { computeAllProxyRules, computeProxyRules } from '../policies/core/proxy-rules.js';
import { ruleFor } from '../policies/core/rules.js';
import type { HttpMatch, MeshHTTPRouteConf } from '../policies/meshhttproute/api.js';
import { ruleMatchesHash } from '../policies/meshhttproute/prepare-routes.js';
import type { MeshTCPRouteConf } from '../policies/meshtcproute/api.js';
import { permissionMatrix } from '../policies/meshtrafficpermission/permission-matrix.js';
import { serviceProtocol, type MeshContext } from '../xds/context/mesh-context.js';

export type ProxyStatusOf = (proxyId: string) => ProxyStatus | undefined;

const DEFAULT_OUTBOUND_ADDRESS = '127.0.0.1';
const HTTP_PROTOCOLS = new Set(['http', 'http2', 'grpc']);
/** A tag service and the MeshService of the same name are listed side by side, the tag one first. */
const KIND_ORDER: readonly ServiceSummary['kind'][] = ['tag', 'MeshService'];

/** Every service of the mesh: tag services (inbounds, and outbounds naming a service no inbound serves yet) and MeshServices. */
export function servicesView(context: MeshContext, statusOf: ProxyStatusOf): ServicesView {
  const mesh = context.mesh.meta.name;
  const dataplanes = [...context.dataplanesByName.values()].sort((a, b) => compare(a.meta.name, b.meta.name));
  const permissions = meshMtls(context.mesh) ? permissionsOf(context) : undefined;
  const edgeOf = (caller: DataplaneResource, outbound: Outbound, via: ServiceEdge['via'], service: string, destinationServices: readonly string[]): ServiceEdge => {
    const proxyId = `${mesh}.${caller.meta.name}`;
    const callerServices = [...(identityTags(caller).get(SERVICE_TAG) ?? [])].sort();
    const tags: Tags = via === 'tag' ? outbound.tags! : { [SERVICE_TAG]: service };
    const route = routeSplitOf(context, caller, tags, service);
    const permission = permissions && permissionOf(permissions, callerServices, destinationServices);
    return {
      dataplane: caller.meta.name,
      proxyId,
      callerServices,
      outbound: `${outbound.address ?? DEFAULT_OUTBOUND_ADDRESS}:${outbound.port}`,
      via,
      online: statusOf(proxyId)?.online ?? false,
      ...(route && { route }),
      ...(permission && { permission }),
      policies: policiesReaching(context, caller, tags),
    };
  };
  const endpointOf = (dataplane: DataplaneResource, inbound: NonNullable<DataplaneResource['spec']['networking']['inbound']>[number]): ServiceEndpoint => {
    const proxyId = `${mesh}.${dataplane.meta.name}`;
    const status = statusOf(proxyId);
    return {
      dataplane: dataplane.meta.name,
      proxyId,
      address: inbound.address ?? dataplane.spec.networking.address,
      port: inbound.port,
      healthy: isHealthyInbound(inbound),
      online: status?.online ?? false,
      ...(status && { state: status.state }),
    };
  };

  const tagServices = new Map<string, { endpoints: ServiceEndpoint[]; callers: ServiceEdge[] }>();
  const tagService = (name: string) => {
    let service = tagServices.get(name);
    if (!service) tagServices.set(name, (service = { endpoints: [], callers: [] }));
    return service;
  };
  for (const dataplane of dataplanes) {
    for (const inbound of dataplane.spec.networking.inbound ?? []) {
      const name = inbound.tags?.[SERVICE_TAG];
      if (name !== undefined) tagService(name).endpoints.push(endpointOf(dataplane, inbound));
    }
  }
  for (const dataplane of dataplanes) {
    for (const outbound of dataplane.spec.networking.outbound ?? []) {
      const name = outbound.tags?.[SERVICE_TAG];
      if (name !== undefined) tagService(name).callers.push(edgeOf(dataplane, outbound, 'tag', name, [name]));
    }
  }

  const services: ServiceSummary[] = [...tagServices].map(([name, { endpoints, callers }]) => ({
    kind: 'tag',
    name,
    protocol: serviceProtocol(context, name),
    ports: [...new Set(endpoints.map((endpoint) => endpoint.port))].sort((a, b) => a - b).map((port) => ({ port })),
    vips: [],
    hostnames: [],
    endpoints,
    online: endpoints.filter((endpoint) => endpoint.online).length,
    callers,
  }));

  for (const meshService of context.destinations.meshServices) {
    const name = meshService.meta.name;
    const ports = meshService.spec.ports ?? [];
    const endpoints = selectedDataplanes(meshService.spec, dataplanes).flatMap((dataplane) =>
      (dataplane.spec.networking.inbound ?? []).filter((inbound) => ports.some((port) => inboundServesPort(inbound, port))).map((inbound) => endpointOf(dataplane, inbound)),
    );
    const destinationServices = [...new Set(selectedInboundServices(meshService, ports, dataplanes))].sort();
    const callers = dataplanes.flatMap((dataplane) =>
      (dataplane.spec.networking.outbound ?? [])
        .filter((outbound) => outbound.backendRef?.kind === 'MeshService' && outbound.backendRef.name === name)
        .map((outbound) => edgeOf(dataplane, outbound, 'backendRef', name, destinationServices)),
    );
    services.push({
      kind: 'MeshService',
      name,
      protocol: meshServiceProtocol(ports),
      ports: ports.map(({ port, name: portName, targetPort, appProtocol }) => ({ port, ...(portName && { name: portName }), ...(targetPort !== undefined && { targetPort }), ...(appProtocol && { appProtocol }) })),
      vips: vipsOf(meshService),
      hostnames: ((meshService.status as MeshServiceStatus | undefined)?.addresses ?? []).map(({ hostname }) => hostname),
      endpoints,
      online: endpoints.filter((endpoint) => endpoint.online).length,
      callers,
    });
  }
  services.sort((a, b) => compare(a.name, b.name) || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
  return { mesh, mtls: permissions !== undefined, services };
}

/** The `kuma.io/service` tags of the inbounds a MeshService forwards to: what MeshTrafficPermission decides by. */
function selectedInboundServices(meshService: Resource<'MeshService'>, ports: readonly MeshServicePort[], dataplanes: readonly DataplaneResource[]): string[] {
  return selectedDataplanes(meshService.spec, dataplanes).flatMap((dataplane) =>
    (dataplane.spec.networking.inbound ?? []).flatMap((inbound) => {
      const service = inbound.tags?.[SERVICE_TAG];
      return service !== undefined && ports.some((port) => inboundServesPort(inbound, port)) ? [service] : [];
    }),
  );
}

/** A MeshService speaks the protocol all its ports declare (`appProtocol`), else tcp, as a tag service whose endpoints disagree. */
function meshServiceProtocol(ports: readonly MeshServicePort[]): ServiceSummary['protocol'] {
  const protocols = new Set(ports.map((port) => port.appProtocol ?? 'tcp'));
  const [only] = protocols;
  return protocols.size === 1 && (only === 'http' || only === 'http2' || only === 'grpc') ? only : 'tcp';
}

type PermissionCells = Map<string, { decision: PermissionDecision | 'mixed'; reason: string; origin?: EdgePermission['origin'] }>;

/** The mesh's permission matrix, every cell, by `caller→destination`. */
function permissionsOf(context: MeshContext): PermissionCells {
  const matrix = permissionMatrix(context, { offset: 0, size: Number.MAX_SAFE_INTEGER });
  return new Map(
    matrix.cells.map((cell) => {
      const decided = cell.paths.find((path) => path.verdict.origin) ?? cell.paths[0];
      return [`${cell.caller}→${cell.destination}`, { decision: cell.decision, reason: decided?.verdict.reason ?? '', ...(decided?.verdict.origin && { origin: decided.verdict.origin }) }];
    }),
  );
}

/** The decision for a caller (as every service it calls as) at every destination service the edge reaches; one when they agree. */
function permissionOf(cells: PermissionCells, callerServices: readonly string[], destinationServices: readonly string[]): EdgePermission | undefined {
  // A service no inbound serves has no proxy to decide: nothing answers the caller, permitted or not.
  const found = callerServices.flatMap((caller) => destinationServices.flatMap((destination) => cells.get(`${caller}→${destination}`) ?? []));
  if (found.length === 0) return undefined;
  const decisions = new Set(found.map((cell) => cell.decision));
  const decision = decisions.size === 1 ? [...decisions][0]! : 'mixed';
  const shown = found.find((cell) => cell.decision === decision && cell.origin) ?? found.find((cell) => cell.decision === decision) ?? found[0]!;
  return { decision, reason: decision === 'mixed' ? 'the decision differs between the service’s inbounds or the caller’s services' : shown.reason, ...(shown.origin && { origin: shown.origin }) };
}

/** The route on the caller's outbound: a MeshHTTPRoute for an HTTP service when one applies, else a MeshTCPRoute. */
function routeSplitOf(context: MeshContext, caller: DataplaneResource, tags: Tags, service: string): RouteSplit | undefined {
  if (HTTP_PROTOCOLS.has(serviceProtocol(context, service))) {
    const http = ruleFor(computeProxyRules(context, caller, 'MeshHTTPRoute').rules.to, tags);
    const conf = http?.conf as MeshHTTPRouteConf | undefined;
    if (http && conf?.rules?.length) {
      return {
        type: 'MeshHTTPRoute',
        rules: conf.rules.map((rule): RouteSplitRule => {
          const origin = http.originByMatches?.get(ruleMatchesHash(rule.matches)) ?? http.origins[http.origins.length - 1];
          const matches = describeMatches(rule.matches);
          return { ...(matches && { matches }), targets: splitOf(rule.default.backendRefs, service), ...(origin && { origin }) };
        }),
      };
    }
  }
  const tcp = ruleFor(computeProxyRules(context, caller, 'MeshTCPRoute').rules.to, tags);
  if (!tcp) return undefined;
  const origin = tcp.origins[tcp.origins.length - 1];
  return { type: 'MeshTCPRoute', rules: [{ targets: splitOf((tcp.conf as MeshTCPRouteConf).default.backendRefs, service), ...(origin && { origin }) }] };
}

/** Each backendRef's share; a rule without backendRefs sends everything to the service itself. */
function splitOf(refs: readonly BackendRef[] | undefined, service: string): RouteSplitRule['targets'] {
  const targets = refs && refs.length > 0 ? refs : [{ kind: 'MeshService' as const, name: service }];
  const weights = targets.map((ref) => (typeof ref.weight === 'number' ? ref.weight : 1));
  const sum = weights.reduce((total, weight) => total + weight, 0);
  return targets.map((ref, index) => ({
    kind: ref.kind,
    name: ref.name ?? Object.entries(ref.tags ?? ref.labels ?? {}).map(([key, value]) => `${key}=${value}`).join(','),
    ...(ref.port !== undefined && { port: ref.port }),
    weight: weights[index]!,
    percent: sum === 0 ? 0 : Math.round((weights[index]! / sum) * 10_000) / 100,
  }));
}

function describeMatches(matches: readonly HttpMatch[] | undefined): string | undefined {
  if (!matches || matches.length === 0) return undefined;
  return matches
    .map((match) =>
      [
        match.method,
        match.path && `${match.path.type === 'Exact' ? '' : match.path.type === 'PathPrefix' ? 'prefix ' : 'regex '}${match.path.value}`,
        ...(match.headers ?? []).map((header) => `header ${header.name}${header.value !== undefined ? `=${header.value}` : ''}`),
        ...(match.queryParams ?? []).map((param) => `query ${param.name}=${param.value}`),
      ]
        .filter(Boolean)
        .join(' '),
    )
    .join(' or ');
}

/** Every policy whose `to` rules give the caller's proxy a conf for the outbound to the service. */
function policiesReaching(context: MeshContext, caller: DataplaneResource, tags: Tags): EdgePolicy[] {
  const seen = new Set<string>();
  const policies: EdgePolicy[] = [];
  for (const computed of computeAllProxyRules(context, caller)) {
    for (const origin of ruleFor(computed.rules.to, tags)?.origins ?? []) {
      const key = `${origin.type}/${origin.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      policies.push({ type: origin.type, name: origin.name });
    }
  }
  return policies;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
