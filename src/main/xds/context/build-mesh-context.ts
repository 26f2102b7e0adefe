import { createHash } from 'node:crypto';
import {
  PROTOCOLS,
  PROTOCOL_TAG,
  SERVICE_TAG,
  type DataplaneResource,
  type MeshResource,
  type Protocol,
  type Tags,
} from '../../../shared/resources.js';
import type { Endpoint, MeshContext } from './mesh-context.js';

/**
 * Builds the MeshContext of one mesh from its Mesh and every Dataplane in it. Pure: the same
 * inputs in any order give an equal context with an equal hash.
 */
export function buildMeshContext(mesh: MeshResource, dataplanes: readonly DataplaneResource[]): MeshContext {
  const sorted = sortedByName(dataplanes);
  for (const dataplane of sorted) {
    if (dataplane.meta.mesh !== mesh.meta.name) {
      throw new Error(
        `cannot build the context of mesh "${mesh.meta.name}": Dataplane "${dataplane.meta.name}" belongs to mesh "${dataplane.meta.mesh}"`,
      );
    }
  }
  return {
    mesh,
    dataplanesByName: new Map(sorted.map((dataplane) => [dataplane.meta.name, dataplane])),
    endpointsByService: endpointsByService(sorted),
    hash: hashMeshContextInputs(mesh, dataplanes),
  };
}

/**
 * The hash `buildMeshContext` puts in the context, without building it: the cache layer can
 * compare it with the cached context's hash and keep that context when they are equal.
 *
 * It covers each resource's name, version and spec. The version alone would catch every update
 * (the store bumps it on every write), but a Dataplane that is deleted and created again, as a
 * reconnecting proxy does, starts again at version 1 with a possibly different spec. Labels and
 * times are left out: no generated configuration depends on them.
 */
export function hashMeshContextInputs(mesh: MeshResource, dataplanes: readonly DataplaneResource[]): string {
  const inputs = {
    mesh: { name: mesh.meta.name, version: mesh.meta.version, spec: mesh.spec },
    dataplanes: sortedByName(dataplanes).map((dataplane) => ({
      name: dataplane.meta.name,
      version: dataplane.meta.version,
      spec: dataplane.spec,
    })),
  };
  return createHash('sha256').update(canonicalJson(inputs)).digest('hex');
}

function endpointsByService(dataplanes: readonly DataplaneResource[]): Map<string, Endpoint[]> {
  const byService = new Map<string, Endpoint[]>();
  for (const dataplane of dataplanes) {
    const { networking } = dataplane.spec;
    for (const inbound of networking.inbound ?? []) {
      const service = inbound.tags[SERVICE_TAG];
      if (service === undefined) continue; // validation requires it; such an inbound serves nothing
      const endpoints = byService.get(service) ?? [];
      endpoints.push({
        dataplane: dataplane.meta.name,
        address: inbound.address ?? networking.advertisedAddress ?? networking.address,
        port: inbound.port,
        tags: inbound.tags,
        protocol: protocolFromTags(inbound.tags),
        weight: 1,
      });
      byService.set(service, endpoints);
    }
  }
  const services = [...byService.keys()].sort(compareStrings);
  return new Map(services.map((service) => [service, byService.get(service)!.sort(compareEndpoints)]));
}

/** The protocol an inbound's `kuma.io/protocol` tag declares; tcp when absent, as in Kuma. */
export function protocolFromTags(tags: Tags): Protocol {
  return PROTOCOLS.find((protocol) => protocol === tags[PROTOCOL_TAG]) ?? 'tcp';
}

function sortedByName(dataplanes: readonly DataplaneResource[]): DataplaneResource[] {
  return [...dataplanes].sort((a, b) => compareStrings(a.meta.name, b.meta.name));
}

function compareEndpoints(a: Endpoint, b: Endpoint): number {
  return compareStrings(a.dataplane, b.dataplane) || compareStrings(a.address, b.address) || a.port - b.port;
}

/** Code-unit order, unlike localeCompare: the same on every machine and locale. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON with object keys sorted, so that key order in a stored spec cannot change the hash. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => compareStrings(a, b));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
