// Kuma Resource Identifiers (pkg/core/kri/kri.go): `kri_<short>_<mesh>_<zone>_<namespace>_<name>_<section>`.
import { WORKLOAD_LABEL, type Resource, type ResourceType } from '../../shared/resources.js';
import { SERVICE_MODEL_DESCRIPTORS } from '../meshservice/descriptors.js';
import { POLICY_DESCRIPTORS } from '../policies/descriptors.js';

const PREFIX = 'kri';
const ZONE_LABEL = 'kuma.io/zone';
const NAMESPACE_LABEL = 'k8s.kuma.io/namespace';
const DISPLAY_NAME_LABEL = 'kuma.io/display-name';
/** Kuma's Workload type, which meshdesk does not store; Dataplanes name theirs by label. */
const WORKLOAD_SHORT_NAME = 'wl';

/** Kuma's short names of the types meshdesk stores (a policy's is in its descriptor). */
export const SHORT_NAMES = {
  Mesh: 'm',
  Dataplane: 'dp',
  ...Object.fromEntries(POLICY_DESCRIPTORS.map((descriptor) => [descriptor.type, descriptor.shortName])),
  ...Object.fromEntries(SERVICE_MODEL_DESCRIPTORS.map((descriptor) => [descriptor.type, descriptor.shortName])),
} as Record<ResourceType, string>;

/** What a KRI names; zone and namespace come from the resource's labels, empty when it has none. */
export interface KriParts {
  type: ResourceType;
  mesh: string;
  zone: string;
  namespace: string;
  name: string;
  sectionName: string;
}

/** The KRI of a stored resource: the display-name label stands for the name when there is one. */
export function kriOf({ type, meta }: Pick<Resource, 'type' | 'meta'>): string {
  return kriOfShortName(SHORT_NAMES[type], meta);
}

/** The same for any type by its short name (a policy's is in its descriptor: `mfi`). */
export function kriOfShortName(shortName: string, meta: Pick<Resource['meta'], 'mesh' | 'name' | 'labels'>): string {
  return [PREFIX, shortName, meta.mesh, meta.labels[ZONE_LABEL] ?? '', meta.labels[NAMESPACE_LABEL] ?? '', meta.labels[DISPLAY_NAME_LABEL] ?? meta.name, ''].join('_');
}

/**
 * The KRI of the Workload a Dataplane's `kuma.io/workload` label names, in the Dataplane's mesh, zone
 * and namespace (Kuma's meshaccesslog workloadIdentity); empty without the label.
 */
export function workloadKri(meta: Pick<Resource['meta'], 'mesh' | 'labels'>): string {
  const workload = meta.labels[WORKLOAD_LABEL];
  if (!workload) return '';
  return [PREFIX, WORKLOAD_SHORT_NAME, meta.mesh, meta.labels[ZONE_LABEL] ?? '', meta.labels[NAMESPACE_LABEL] ?? '', workload, ''].join('_');
}

export function formatKri(parts: KriParts): string {
  return [PREFIX, SHORT_NAMES[parts.type], parts.mesh, parts.zone, parts.namespace, parts.name, parts.sectionName].join('_');
}

/** A KRI's parts, or a message saying why the text is not one meshdesk can resolve. */
export function parseKri(text: string): KriParts | string {
  const parts = text.split('_');
  if (parts.length !== 7 || parts[0] !== PREFIX) {
    return `invalid KRI "${text}": expected ${PREFIX}_<type>_<mesh>_<zone>_<namespace>_<name>_<section>`;
  }
  const [, short, mesh, zone, namespace, name, sectionName] = parts as [string, string, string, string, string, string, string];
  const type = (Object.keys(SHORT_NAMES) as ResourceType[]).find((candidate) => SHORT_NAMES[candidate] === short);
  if (type === undefined) return `invalid KRI "${text}": unknown resource type "${short}"`;
  if (name === '') return `invalid KRI "${text}": the name is empty`;
  return { type, mesh, zone, namespace, name, sectionName };
}
