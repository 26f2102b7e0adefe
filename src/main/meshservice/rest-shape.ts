// The service model's resources in Kuma's REST shape (pkg/core/resources/model/rest/v1alpha1): the
// spec nested, `snis` per section (Kuma's MeshIdentity SNI format, pkg/core/resources/sni), and the
// status as Kuma's Go structs marshal it (struct fields that are never omitted show as `{}`).
import { DISPLAY_NAME_LABEL, NAMESPACE_LABEL, type MeshServiceModelType } from '../../shared/meshservice-types.js';
import type { Resource } from '../../shared/resources.js';
import { ZONE_TAG } from '../resources/computed-labels.js';
import { SERVICE_MODEL_DESCRIPTORS } from './descriptors.js';
import { sectionsOf } from './sections.js';


/** `snis`, `spec` and `status` of a service-model resource, to place after its meta fields. */
export function serviceModelFields(resource: Resource): Record<string, unknown> {
  const type = resource.type as MeshServiceModelType;
  if (type === 'HostnameGenerator') return { spec: resource.spec };
  const snis = sectionsOf(resource).map((section) => ({ port: section.port, sni: sniOf(resource, section.name) }));
  return { ...(snis.length > 0 && { snis }), spec: resource.spec, status: statusWithDefaults(resource) };
}

/** `sni.<short>.<mesh>[.<zone>[.<namespace>]].<name>.<section>`: the zone only for a zone's own resource. */
export function sniOf({ type, meta }: Pick<Resource, 'type' | 'meta'>, section: string): string {
  const shortName = SERVICE_MODEL_DESCRIPTORS.find((descriptor) => descriptor.type === type)!.shortName;
  const zone = meta.labels[ZONE_TAG] ?? '';
  const namespace = meta.labels[NAMESPACE_LABEL] ?? '';
  const name = meta.labels[DISPLAY_NAME_LABEL] ?? meta.name;
  return ['sni', shortName, meta.mesh, ...(zone ? [zone, ...(namespace ? [namespace] : [])] : []), name, section].join('.');
}

function statusWithDefaults(resource: Resource): Record<string, unknown> {
  const status = (resource.status ?? {}) as Record<string, unknown>;
  switch (resource.type) {
    case 'MeshService':
      return { ...status, tls: status.tls ?? {}, dataplaneProxies: status.dataplaneProxies ?? {} };
    case 'MeshExternalService':
      return { ...status, vip: status.vip ?? {} };
    default:
      return status;
  }
}
