// Resources in the Kuma API shape: meta fields and spec fields side by side, as `kumactl get -o yaml` prints them.
import type { Resource, ResourceInput } from '../../shared/resources.js';
import { isPolicyType } from '../../shared/policy-types.js';
import { isMeshServiceModelType } from '../../shared/meshservice-types.js';
import { serviceModelFields } from '../meshservice/rest-shape.js';
import { kriOf } from './kri.js';

export const DEFAULT_MESH_NAME = 'default';

/**
 * `{type, mesh?, name, creationTime, modificationTime, labels?, kri, version, ...spec}` (a policy: `spec: {…}`): `mesh` is left out for a
 * Mesh and `labels` when there are none, as Kuma does; `version` is meshdesk's (optimistic concurrency).
 * The inverse of validateResource: reading this back gives the same spec, labels and version.
 * The spec's objects are shared with `resource`, not copied.
 */
export function toKumaObject(resource: Resource): Record<string, unknown> {
  const { type, meta, spec } = resource;
  return {
    type,
    ...(type === 'Mesh' || type === 'HostnameGenerator' ? {} : { mesh: meta.mesh }),
    name: meta.name,
    creationTime: meta.creationTime,
    modificationTime: meta.modificationTime,
    ...(Object.keys(meta.labels).length > 0 && { labels: meta.labels }),
    kri: kriOf(resource),
    version: meta.version,
    // Kuma's policies and service model (v1alpha1 resources) nest their spec; Mesh and Dataplane spread it beside the meta.
    ...(isMeshServiceModelType(type) ? serviceModelFields(resource) : isPolicyType(type) ? { spec } : spec),
  };
}

/** The mesh that exists from the start (SPEC §3). */
export function defaultMesh(): ResourceInput<'Mesh'> {
  return { type: 'Mesh', mesh: '', name: DEFAULT_MESH_NAME, labels: {}, spec: {} };
}
