import type { PolicyVersionChange } from '../../../shared/api-types.js';
import type { PolicyResource } from '../../policies/core/policy.js';

/** Each policy of a MeshContext by `type/name`, with its store version. */
export type PolicyVersions = ReadonlyMap<string, { type: PolicyResource['type']; name: string; version: number }>;

export function policyVersions(policies: readonly PolicyResource[]): PolicyVersions {
  return new Map(policies.map(({ type, meta }) => [`${type}/${meta.name}`, { type, name: meta.name, version: meta.version }]));
}

/** What changed from one set of policies to another: created, updated (version moved) or deleted, by type then name. */
export function policyChangesBetween(before: PolicyVersions, after: PolicyVersions): PolicyVersionChange[] {
  const changes: PolicyVersionChange[] = [];
  for (const [key, { type, name, version }] of after) {
    const old = before.get(key);
    if (old?.version !== version) changes.push({ type, name, ...(old && { from: old.version }), to: version });
  }
  for (const [key, { type, name, version }] of before) {
    if (!after.has(key)) changes.push({ type, name, from: version });
  }
  return changes.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
