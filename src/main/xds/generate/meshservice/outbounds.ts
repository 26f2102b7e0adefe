// Which MeshService outbounds a sidecar gets (Kuma 2.14's dataplane proxy builder and
// meshroute's CollectServices, for real resources): the Dataplane's `backendRef` outbounds without
// transparent proxy, the mesh's MeshService VIPs (as the mesh's mode allows) with it.
import type { MeshServicesMode } from '../../../../shared/meshservice-types.js';
import type { BackendRef, DataplaneResource, ReachableBackendRef, Resource } from '../../../../shared/resources.js';
import { ZONE_TAG } from '../../../resources/computed-labels.js';
import { meshServicesMode } from '../../../resources/mesh-validator.js';
import { matchesLabels } from '../../../meshservice/match.js';
import { sectionsOf, type Section } from '../../../meshservice/sections.js';
import { vipsOf } from '../../../meshservice/vip-allocator.js';
import type { MeshContext } from '../../context/mesh-context.js';
import { displayNameOf } from './names.js';

const MESH_SERVICE_KIND = 'MeshService';
/** Where a `backendRef` outbound listens when it names no address, as for tagged outbounds. */
const DEFAULT_ADDRESS = '127.0.0.1';

export interface MeshServiceOutbound {
  address: string;
  port: number;
  meshService: Resource<'MeshService'>;
  section: Section;
  /**
   * False under transparent proxy: traffic reaches the VIP listener through the redirect, and a
   * VIP is no local address Envoy could bind.
   */
  bindToPort: boolean;
}

function usesTransparentProxy(dataplane: DataplaneResource): boolean {
  const redirect = dataplane.spec.networking.transparentProxying;
  return (redirect?.redirectPortOutbound ?? 0) !== 0 || (redirect?.redirectPortInbound ?? 0) !== 0;
}

export function meshServiceOutboundsOf(context: MeshContext, dataplane: DataplaneResource): MeshServiceOutbound[] {
  return usesTransparentProxy(dataplane) ? vipOutbounds(context, dataplane) : backendRefOutbounds(context, dataplane);
}

/**
 * The explicit ones: a `backendRef {kind: MeshService, name | labels, port}` is looked up in the
 * Dataplane's mesh and zone by display name (as the KRI it stands for), or as the oldest
 * MeshService with those labels; its section is the port number. A ref to no MeshService or port
 * of the mesh makes no outbound, as in Kuma. Other kinds are not served yet (`_not-applied` says so).
 */
function backendRefOutbounds(context: MeshContext, dataplane: DataplaneResource): MeshServiceOutbound[] {
  return (dataplane.spec.networking.outbound ?? []).flatMap((outbound) => {
    const found = outbound.backendRef && resolveBackendRef(context, dataplane, outbound.backendRef);
    return found ? [{ address: outbound.address ?? DEFAULT_ADDRESS, port: outbound.port, ...found, bindToPort: true }] : [];
  });
}

function resolveBackendRef(
  context: MeshContext,
  dataplane: DataplaneResource,
  ref: BackendRef,
): { meshService: Resource<'MeshService'>; section: Section } | undefined {
  if (ref.kind !== MESH_SERVICE_KIND) return undefined;
  const zone = dataplane.meta.labels[ZONE_TAG] ?? '';
  const candidates = context.destinations.meshServices.filter((meshService) =>
    ref.name
      ? displayNameOf(meshService) === ref.name && (meshService.meta.labels[ZONE_TAG] ?? '') === zone
      : matchesLabels(ref.labels, meshService.meta.labels),
  );
  const meshService = oldest(candidates);
  const section = meshService && sectionsOf(meshService).find((each) => each.port === ref.port);
  if (meshService === undefined || section === undefined) return undefined;
  // Kuma names a backendRef's section by the port number even when the port has a name.
  return { meshService, section: { port: section.port, name: String(section.port) } };
}

/** The first created (ISO times compare as text), then by name. */
function oldest(meshServices: readonly Resource<'MeshService'>[]): Resource<'MeshService'> | undefined {
  const key = (meshService: Resource<'MeshService'>) => `${meshService.meta.creationTime}\n${meshService.meta.name}`;
  return [...meshServices].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))[0];
}

/**
 * Under transparent proxy: one outbound per VIP and port of every MeshService of the mesh, in every
 * mode (Disabled included: a MeshService made by hand with a VIP is served). ReachableBackends
 * serves them only to a Dataplane listing `reachableBackends`, and only those it lists; a Dataplane
 * listing legacy `reachableServices` only gets none. An outbound on one of the proxy's own inbound
 * sockets is left out.
 */
function vipOutbounds(context: MeshContext, dataplane: DataplaneResource): MeshServiceOutbound[] {
  const reachable = reachableFilter(meshServicesMode(context.mesh.spec), dataplane);
  if (reachable === 'none') return [];
  const inboundSockets = new Set(
    (dataplane.spec.networking.inbound ?? []).map((inbound) => `${inbound.address ?? dataplane.spec.networking.address}:${inbound.port}`),
  );
  const outbounds: MeshServiceOutbound[] = [];
  for (const meshService of context.destinations.meshServices) {
    for (const address of vipsOf(meshService)) {
      for (const section of sectionsOf(meshService)) {
        if (inboundSockets.has(`${address}:${section.port}`)) continue;
        if (reachable !== 'all' && !reachable.some((ref) => reachesSection(ref, meshService, section))) continue;
        outbounds.push({ address, port: section.port, meshService, section, bindToPort: false });
      }
    }
  }
  return outbounds;
}

function reachableFilter(mode: MeshServicesMode, dataplane: DataplaneResource): 'all' | 'none' | readonly ReachableBackendRef[] {
  const transparentProxying = dataplane.spec.networking.transparentProxying;
  const refs = transparentProxying?.reachableBackends?.refs;
  if (refs !== undefined) return refs;
  if (mode === 'ReachableBackends' || (transparentProxying?.reachableServices ?? []).length > 0) return 'none';
  return 'all';
}

function reachesSection(ref: ReachableBackendRef, meshService: Resource<'MeshService'>, section: Section): boolean {
  if (ref.kind !== MESH_SERVICE_KIND) return false;
  if (ref.port !== undefined && ref.port !== section.port) return false;
  return ref.name ? displayNameOf(meshService) === ref.name : matchesLabels(ref.labels, meshService.meta.labels);
}
