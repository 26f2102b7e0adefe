// What Kuma's zone status updaters compute, as pure functions: a MeshService's identities, state,
// data plane proxy counts and TLS readiness (pkg/core/resources/apis/meshservice/status/updater.go), a
// MeshMultiZoneService's matched MeshServices and condition (meshmultizoneservice/status_updater.go),
// and the hostnames of every HostnameGenerator (hostnamegenerator/hostname/generator.go).
import {
  DISPLAY_NAME_LABEL,
  NAMESPACE_LABEL,
  type Condition,
  type DestinationStatus,
  type HostnameAddress,
  type HostnameGeneratorStatus,
  type MeshMultiZoneServiceStatus,
  type MeshServiceSpec,
  type MeshServiceStatus,
} from '../../shared/meshservice-types.js';
import { SERVICE_TAG, type DataplaneResource, type Resource } from '../../shared/resources.js';
import { KUMA_ORIGIN_LABEL, ZONE_TAG } from '../resources/computed-labels.js';
import { generateHostname } from './hostnames.js';
import { inboundServesPort, matchesLabels } from './match.js';
import { TemplateError } from './template.js';

/** What the updater knows of a Dataplane's proxy (Kuma reads its DataplaneInsight). */
export interface ProxyFacts {
  online: boolean;
  /** An mTLS certificate was issued to it. */
  certificateIssued: boolean;
}

export interface MeshServiceStatusInput {
  spec: MeshServiceSpec;
  status: MeshServiceStatus | undefined;
  /** The Dataplanes its selector picks, healthy or not. */
  dataplanes: readonly DataplaneResource[];
  proxyFacts: (dataplane: DataplaneResource) => ProxyFacts;
  mtlsEnabled: boolean;
}

/** The spec fields (identities, state) and status fields (tls, dataplaneProxies) the updater owns. */
export function meshServiceStatus({ spec, status, dataplanes, proxyFacts, mtlsEnabled }: MeshServiceStatusInput): {
  identities: NonNullable<MeshServiceSpec['identities']>;
  state: 'Available' | 'Unavailable';
  tls: NonNullable<MeshServiceStatus['tls']>;
  dataplaneProxies: NonNullable<MeshServiceStatus['dataplaneProxies']>;
} {
  const services = new Set<string>();
  for (const dataplane of dataplanes) {
    for (const inbound of dataplane.spec.networking.inbound ?? []) {
      const service = inbound.tags?.[SERVICE_TAG];
      if (service !== undefined) services.add(service);
    }
  }
  const identities = [...services].sort().map((value) => ({ type: 'ServiceTag' as const, value }));
  const ports = spec.ports ?? [];
  let connected = 0;
  let healthy = 0;
  for (const dataplane of dataplanes) {
    if (proxyFacts(dataplane).online) connected++;
    const inbounds = dataplane.spec.networking.inbound ?? [];
    // Every port served by an inbound in state Ready (Kuma reads the state here, not `health`).
    if (ports.every((port) => inbounds.some((inbound) => (inbound.state ?? 'Ready') === 'Ready' && inboundServesPort(inbound, port)))) healthy++;
  }
  const dataplaneProxies = { ...(connected && { connected }), ...(healthy && { healthy }), ...(dataplanes.length && { total: dataplanes.length }) };
  return { identities, state: healthy > 0 ? 'Available' : 'Unavailable', tls: tlsStatus(status?.tls, dataplanes, proxyFacts, mtlsEnabled), dataplaneProxies };
}

/** NotReady without mesh mTLS; Ready once every selected proxy has a certificate, and from then on (sticky). */
function tlsStatus(
  existing: MeshServiceStatus['tls'],
  dataplanes: readonly DataplaneResource[],
  proxyFacts: (dataplane: DataplaneResource) => ProxyFacts,
  mtlsEnabled: boolean,
): NonNullable<MeshServiceStatus['tls']> {
  if (!mtlsEnabled) return { status: 'NotReady' };
  if (existing?.status === 'Ready') return existing;
  return { status: dataplanes.every((dataplane) => proxyFacts(dataplane).certificateIssued) ? 'Ready' : 'NotReady' };
}

/** The MeshServices a MeshMultiZoneService selects (by label, across its mesh) and its MeshServicesMatched condition. */
export function meshMultiZoneServiceStatus(
  selector: Readonly<Record<string, string>> | undefined,
  meshServices: readonly Resource<'MeshService'>[],
): Pick<MeshMultiZoneServiceStatus, 'meshServices'> & { condition: Condition } {
  const matched = meshServices
    .filter((meshService) => matchesLabels(selector, meshService.meta.labels))
    .map(({ meta }) => ({
      name: meta.labels[DISPLAY_NAME_LABEL] ?? meta.name,
      namespace: meta.labels[NAMESPACE_LABEL] ?? '',
      zone: meta.labels[ZONE_TAG] ?? '',
      mesh: meta.mesh,
    }))
    .sort((a, b) => {
      const key = (each: typeof a) => `${each.name}/${each.namespace}/${each.zone}/${each.mesh}`;
      return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
    });
  const condition: Condition =
    matched.length === 0
      ? { type: 'MeshServicesMatched', status: 'False', reason: 'NoMatchesFound', message: 'Selector does not match any MeshService in this zone' }
      : { type: 'MeshServicesMatched', status: 'True', reason: 'MatchesFound', message: `Matched ${matched.length} MeshService(s)` };
  return { meshServices: matched, condition };
}

/** The condition list with `condition` in place of the one of its type (or added). */
export function withCondition(conditions: readonly Condition[] | undefined, condition: Condition): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((each) => each.type === condition.type);
  if (index === -1) list.push(condition);
  else list[index] = condition;
  return list;
}

/**
 * Every resource's `addresses` and `hostnameGenerators` from the generators, in Kuma's order: zone
 * generators first, then by creation time, then name; resources by creation time, then name. A
 * hostname another resource of the mesh already took is a Collision; a template that fails, a TemplateError.
 */
export function hostnameStatuses<T extends Resource>(
  localZone: string,
  generators: readonly Resource<'HostnameGenerator'>[],
  resources: readonly T[],
): Map<T, Required<DestinationStatus>> {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const byCreation = (a: Resource, b: Resource) => compare(a.meta.creationTime, b.meta.creationTime) || compare(a.meta.name, b.meta.name);
  const isZone = (generator: Resource) => generator.meta.labels[KUMA_ORIGIN_LABEL] === 'zone';
  const sortedGenerators = [...generators].sort((a, b) => {
    const origin = isZone(a) === isZone(b) ? 0 : isZone(a) ? -1 : 1;
    return origin || byCreation(a, b);
  });
  const sortedResources = [...resources].sort(byCreation);
  const takenInMesh = new Map<string, Map<string, string>>();
  const perResource = new Map<T, Map<string, { hostname: string; conditions: Condition[] }>>();
  for (const generator of sortedGenerators) {
    for (const resource of sortedResources) {
      let generated = '';
      let failure: string | undefined;
      try {
        generated = generateHostname(localZone, generator, resource, { validateDns: true });
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        failure = error.message;
      }
      const statuses = perResource.get(resource) ?? new Map();
      perResource.set(resource, statuses);
      if (generated === '' && failure === undefined) {
        statuses.set(generator.meta.name, { hostname: '', conditions: [] });
        continue;
      }
      let condition: Condition;
      if (failure !== undefined) {
        condition = { type: 'Generated', status: 'False', reason: 'TemplateError', message: failure };
      } else {
        const taken = takenInMesh.get(resource.meta.mesh) ?? new Map<string, string>();
        takenInMesh.set(resource.meta.mesh, taken);
        const holder = taken.get(generated);
        if (holder !== undefined && holder !== resource.meta.name) {
          condition = { type: 'Generated', status: 'False', reason: 'Collision', message: `Hostname collision with ${resource.type}: ${resource.meta.name}` };
          generated = '';
        } else {
          condition = { type: 'Generated', status: 'True', reason: 'Generated', message: '' };
          taken.set(generated, resource.meta.name);
        }
      }
      statuses.set(generator.meta.name, { hostname: generated, conditions: [condition] });
    }
  }
  const result = new Map<T, Required<DestinationStatus>>();
  for (const resource of sortedResources) {
    const statuses = perResource.get(resource) ?? new Map<string, { hostname: string; conditions: Condition[] }>();
    const addresses: HostnameAddress[] = [];
    const hostnameGenerators: HostnameGeneratorStatus[] = [];
    for (const name of [...statuses.keys()].sort()) {
      const { hostname, conditions } = statuses.get(name)!;
      if (hostname === '' && conditions.length === 0) continue;
      const ref = { coreName: name };
      if (hostname !== '') addresses.push({ hostname, origin: 'HostnameGenerator', hostnameGeneratorRef: ref });
      hostnameGenerators.push({ hostnameGeneratorRef: ref, conditions });
    }
    result.set(resource, { addresses, hostnameGenerators });
  }
  return result;
}
