// The labels Kuma computes on every write of a resource (pkg/core/resources/labels/compute.go, v2.14),
// API writes and proxy registrations alike, for the control plane meshdesk imitates: a zone control
// plane in universal mode, not federated.
import type { DataplaneSpec, ResourceInput } from '../../shared/resources.js';

/**
 * meshdesk's zone: one meshdesk is one zone, named as a Kuma zone control plane is by default
 * (`multizone.zone.name`, pkg/config/multizone DefaultZoneConfig), which a standalone Kuma also uses.
 */
export const ZONE_NAME = 'default';

/** Kuma's zone label and tag (mesh_proto.ZoneTag). */
export const ZONE_TAG = 'kuma.io/zone';
/** Kuma's origin label: `zone` for what a zone made, `global` for what a federation's global control plane did. */
export const KUMA_ORIGIN_LABEL = 'kuma.io/origin';

/** Labels Kuma keeps only while the Dataplane has a listener of the type (api/mesh/v1alpha1 dataplane_helpers.go). */
const LISTENER_LABELS = { ZoneIngress: 'kuma.io/listener-zoneingress', ZoneEgress: 'kuma.io/listener-zoneegress' } as const;

/**
 * The labels a write stores. Mesh-scoped types (Dataplane, policies) get `kuma.io/mesh` unless given;
 * types a zone provides (Dataplane and the policies; not Mesh) get `kuma.io/origin: zone`,
 * `kuma.io/zone` and `kuma.io/env` unless given; proxies get their `kuma.io/proxy-type`, and
 * `kuma.io/listener-zoneingress` / `-zoneegress: enabled` exactly while they have such a listener.
 * The Mesh, made on the global side in a federation, gets none; a MeshMultiZoneService only its mesh;
 * a HostnameGenerator (global) no mesh. A policy gets no
 * `kuma.io/policy-role`: Kuma sets it only for policies in a Kubernetes namespace, and in universal
 * every policy has the system role.
 */
export function computeLabels(
  input: Pick<ResourceInput, 'type' | 'mesh' | 'labels' | 'spec'>,
  zone: string,
): Record<string, string> {
  if (input.type === 'Mesh') return { ...input.labels };
  // Kuma's MeshMultiZoneService comes only from a global control plane (not ProvidedByZone).
  if (input.type === 'MeshMultiZoneService') return { 'kuma.io/mesh': input.mesh, ...input.labels };
  const origin = input.labels?.[KUMA_ORIGIN_LABEL] ?? 'zone';
  const zoneLabels: Record<string, string> = {
    // A HostnameGenerator is global: no mesh.
    ...(input.type !== 'HostnameGenerator' && { 'kuma.io/mesh': input.mesh }),
    [KUMA_ORIGIN_LABEL]: origin,
    // A resource the global control plane made keeps no zone (Kuma sets these only for other origins).
    ...(origin !== 'global' && { [ZONE_TAG]: zone, 'kuma.io/env': 'universal' }),
    ...input.labels,
  };
  if (input.type !== 'Dataplane') return zoneLabels;
  const { gateway, listeners = [] } = (input.spec as DataplaneSpec).networking;
  const labels: Record<string, string> = { ...zoneLabels, 'kuma.io/proxy-type': gateway === undefined ? 'sidecar' : 'gateway' };
  for (const [type, label] of Object.entries(LISTENER_LABELS)) {
    if (listeners.some((listener) => listener.type === type)) labels[label] = 'enabled';
    else delete labels[label];
  }
  return labels;
}
