// How policies and what they did are named in the UI: the same words in every view.
import type { PolicyVersionChange } from '../../../../shared/api-types.js';
import { href } from '../state/router.svelte.js';

/** "MeshTimeout timeout-backend v2 → v3", "MeshRetry retry-all created", "… deleted (was v4)". */
export function describePolicyChange({ type, name, from, to }: PolicyVersionChange): string {
  if (from === undefined) return `${type} ${name} created`;
  if (to === undefined) return `${type} ${name} deleted (was v${from})`;
  return `${type} ${name} v${from} → v${to}`;
}

/** The Policies view's page of one policy. */
export function policyHref(type: string, mesh: string, name: string): string {
  return href('policies', type, mesh, name);
}

/** A targetRef in a few words: `Mesh`, `MeshService backend`, `MeshSubset kuma.io/service=web`. */
export function describeTargetRef(targetRef: unknown): string {
  if (!targetRef || typeof targetRef !== 'object') return 'Mesh';
  const { kind, name, tags, labels, sectionName } = targetRef as { kind?: string; name?: string; tags?: Record<string, string>; labels?: Record<string, string>; sectionName?: string };
  const pairs = Object.entries(tags ?? labels ?? {}).map(([key, value]) => `${key}=${value}`);
  return [kind ?? 'Mesh', name, ...pairs, sectionName && `:${sectionName}`].filter(Boolean).join(' ');
}
