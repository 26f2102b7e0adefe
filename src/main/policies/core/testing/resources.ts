// Small builders for the rules engine's tests: a policy and a Dataplane as the cached manager hands them out.
import type { PolicyType } from '../../../../shared/policy-types.js';
import type { DataplaneResource, Inbound, MeshResource } from '../../../../shared/resources.js';
import type { PolicyResource, PolicySpec } from '../policy.js';

const TIME = '2026-01-01T00:00:00.000Z';

export function meshResource(name = 'default'): MeshResource {
  return { type: 'Mesh', meta: { mesh: '', name, version: 1, creationTime: TIME, modificationTime: TIME, labels: {} }, spec: {} };
}

export function policyResource(type: PolicyType, name: string, spec: PolicySpec, labels: Record<string, string> = {}): PolicyResource {
  return { type, meta: { mesh: 'default', name, version: 1, creationTime: TIME, modificationTime: TIME, labels }, spec };
}

export function dataplaneResource(
  name: string,
  inbound: Inbound[],
  { labels = {}, address = '10.0.0.1', gateway = false }: { labels?: Record<string, string>; address?: string; gateway?: boolean } = {},
): DataplaneResource {
  return {
    type: 'Dataplane',
    meta: { mesh: 'default', name, version: 1, creationTime: TIME, modificationTime: TIME, labels },
    spec: { networking: { address, inbound, ...(gateway && { gateway: { type: 'DELEGATED', tags: { 'kuma.io/service': name } } }) } },
  } as DataplaneResource;
}
