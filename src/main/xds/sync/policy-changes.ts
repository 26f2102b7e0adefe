import type { PolicyVersionChange } from '../../../shared/api-types.js';
import type { PolicyResource } from '../../policies/core/policy.js';
import { ORIGIN_LABEL } from '../callbacks/dataplane-lifecycle.js';
import type { MeshContext } from '../context/mesh-context.js';

interface VersionedInput {
  type: PolicyVersionChange['type'];
  name: string;
  version: number;
  /** A Dataplane a proxy registered: that proxy's id. */
  registeredBy?: string;
  /** A Mesh: its mTLS backend in force, so that turning mTLS on or off is named. */
  mtlsBackend?: string;
}

/** Each input of a MeshContext a user or another proxy changes (the Mesh, its Dataplanes, its policies) by `type/name`, with its store version. */
export type PolicyVersions = ReadonlyMap<string, VersionedInput>;

export function policyVersions(policies: readonly PolicyResource[]): PolicyVersions {
  return new Map(policies.map(({ type, meta }) => [`${type}/${meta.name}`, { type, name: meta.name, version: meta.version }]));
}

/** One map per context, shared by every proxy of the mesh (a context is built once per change). */
const contextVersions = new WeakMap<MeshContext, PolicyVersions>();

/** The Mesh, its Dataplanes and its policies with their versions: what a published snapshot came from. */
export function meshContextVersions(context: MeshContext): PolicyVersions {
  let versions = contextVersions.get(context);
  if (!versions) {
    const entries: [string, VersionedInput][] = [
      ['Mesh/', { type: 'Mesh', name: context.mesh.meta.name, version: context.mesh.meta.version, mtlsBackend: context.mesh.spec.mtls?.enabledBackend ?? '' }],
    ];
    for (const { meta } of context.dataplanesByName.values()) {
      const registeredBy = meta.labels?.[ORIGIN_LABEL] === 'proxy' ? `${meta.mesh}.${meta.name}` : undefined;
      entries.push([`Dataplane/${meta.name}`, { type: 'Dataplane', name: meta.name, version: meta.version, ...(registeredBy && { registeredBy }) }]);
    }
    versions = new Map([...entries, ...policyVersions(context.policies)]);
    contextVersions.set(context, versions);
  }
  return versions;
}

/** The last answer per `before`: the proxies of a mesh move from one context to the next together, so one diff serves them all. */
const lastChanges = new WeakMap<PolicyVersions, { after: PolicyVersions; changes: PolicyVersionChange[] }>();

/** What changed from one set of inputs to another: created, updated (version moved) or deleted, by type then name. */
export function policyChangesBetween(before: PolicyVersions, after: PolicyVersions): PolicyVersionChange[] {
  const known = lastChanges.get(before);
  if (known?.after === after) return known.changes;
  const changes: PolicyVersionChange[] = [];
  for (const [key, input] of after) {
    const old = before.get(key);
    if (old?.version !== input.version) changes.push({ ...changeOf(input, old), ...(old && { from: old.version }), to: input.version });
  }
  for (const [key, input] of before) {
    if (!after.has(key)) changes.push({ ...changeOf(input, undefined), from: input.version });
  }
  changes.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  lastChanges.set(before, { after, changes });
  return changes;
}

function changeOf(input: VersionedInput, old: VersionedInput | undefined): PolicyVersionChange {
  const mtls = old !== undefined && input.mtlsBackend !== undefined && input.mtlsBackend !== old.mtlsBackend;
  return {
    type: input.type,
    name: input.name,
    ...(input.registeredBy && { registeredBy: input.registeredBy }),
    ...(mtls && { detail: input.mtlsBackend ? `mTLS on (${input.mtlsBackend})` : 'mTLS off' }),
  };
}
