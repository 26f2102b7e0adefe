// How policies and what they did are named in the UI: the same words in every view.
import type { PolicyVersionChange } from '../../../../shared/api-types.js';
import { href } from '../state/router.svelte.js';

/**
 * "MeshTimeout timeout-backend v2 → v3", "MeshRetry retry-all created", "… deleted (was v4)",
 * "Mesh default v1 → v2: mTLS on (ca-1)", "Dataplane echo-2 created by proxy default.echo-2".
 */
export function describePolicyChange({ type, name, from, to, registeredBy, detail }: PolicyVersionChange): string {
  const what = from === undefined ? `${type} ${name} created` : to === undefined ? `${type} ${name} deleted (was v${from})` : `${type} ${name} v${from} → v${to}`;
  return `${what}${registeredBy && to !== undefined ? ` by proxy ${registeredBy}` : ''}${detail ? `: ${detail}` : ''}`;
}

/** The Policies view's page of one policy. */
export function policyHref(type: string, mesh: string, name: string): string {
  return href('policies', type, mesh, name);
}

/** Where a changed input is shown: a policy in Policies, the Mesh or a Dataplane in Resources. */
export function changeHref({ type, name }: PolicyVersionChange, mesh: string): string {
  if (type === 'Mesh') return href('resources', 'mesh', name);
  if (type === 'Dataplane') return href('resources', 'dataplane', mesh, name);
  return policyHref(type, mesh, name);
}

/** A targetRef in a few words: `Mesh`, `MeshService backend`, `MeshSubset kuma.io/service=web`. */
export function describeTargetRef(targetRef: unknown): string {
  if (!targetRef || typeof targetRef !== 'object') return 'Mesh';
  const { kind, name, tags, labels, sectionName } = targetRef as { kind?: string; name?: string; tags?: Record<string, string>; labels?: Record<string, string>; sectionName?: string };
  const pairs = Object.entries(tags ?? labels ?? {}).map(([key, value]) => `${key}=${value}`);
  return [kind ?? 'Mesh', name, ...pairs, sectionName && `:${sectionName}`].filter(Boolean).join(' ');
}
