// The labels Kuma's API computes on every write (pkg/core/resources/labels/compute.go, v2.14), for the
// control plane meshdesk imitates: a zone control plane named `default` in universal mode.
import type { ResourceInput } from '../../shared/resources.js';

/** meshdesk's zone, Kuma's default zone name (kuma-cp.defaults.yaml). */
export const ZONE_NAME = 'default';

/**
 * The labels a write stores. Mesh-scoped types (Dataplane, policies) get `kuma.io/mesh` unless given;
 * types a zone provides (Dataplane and the policies; not Mesh) get `kuma.io/origin: zone`,
 * `kuma.io/zone` and `kuma.io/env`; proxies get their `kuma.io/proxy-type`. The Mesh, made on the
 * global side in a federation, gets none. A policy gets no `kuma.io/policy-role`: Kuma sets it only
 * for policies in a Kubernetes namespace, and in universal every policy has the system role.
 */
export function computeLabels(input: Pick<ResourceInput, 'type' | 'mesh' | 'labels' | 'spec'>): Record<string, string> {
  if (input.type === 'Mesh') return { ...input.labels };
  const zoneLabels = {
    'kuma.io/mesh': input.mesh,
    ...input.labels,
    'kuma.io/origin': 'zone',
    'kuma.io/zone': ZONE_NAME,
    'kuma.io/env': 'universal',
  };
  if (input.type !== 'Dataplane') return zoneLabels;
  const gateway = (input.spec as { networking?: { gateway?: unknown } }).networking?.gateway;
  return { ...zoneLabels, 'kuma.io/proxy-type': gateway === undefined ? 'sidecar' : 'gateway' };
}
