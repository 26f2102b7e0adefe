import type { Resource, ResourceInput, Violation } from '../../shared/resources.js';
import { computeLabels, KUMA_ORIGIN_LABEL, ZONE_NAME, ZONE_TAG } from '../resources/computed-labels.js';
import { ValidationError } from '../resources/validation-error.js';
import { ApiError, INVALID_RESOURCE_DETAIL } from './api-error.js';

const MESH_LABEL = 'kuma.io/mesh';
const DISPLAY_NAME_LABEL = 'kuma.io/display-name';
const ORIGINS = ['global', 'zone'];

const labelField = (key: string) => `labels["${key}"]`;

/**
 * Kuma's API rules for the labels a write brings (resource_endpoints.go validateLabels, on a zone
 * control plane that is not federated): a known origin, and, on a resource of this zone, the zone
 * label naming this zone and the mesh label the resource's mesh.
 * @throws ValidationError
 */
export function requireValidLabels(input: ResourceInput, title: string): void {
  const labels = input.labels ?? {};
  const violations: Violation[] = [];
  const origin = labels[KUMA_ORIGIN_LABEL];
  if (origin !== undefined && !ORIGINS.includes(origin)) {
    violations.push({ field: labelField(KUMA_ORIGIN_LABEL), message: `unknown resource origin ${JSON.stringify(origin)}` });
  }
  if (origin !== 'global') {
    if (labels[ZONE_TAG] !== undefined && labels[ZONE_TAG] !== ZONE_NAME) {
      violations.push({ field: labelField(ZONE_TAG), message: `${ZONE_TAG} label should have ${ZONE_NAME} value` });
    }
    if (labels[MESH_LABEL] !== undefined && labels[MESH_LABEL] !== (input.mesh ?? '')) {
      violations.push({ field: labelField(MESH_LABEL), message: `${MESH_LABEL} label must not differ from mesh set on resource` });
    }
  }
  if (violations.length > 0) throw new ValidationError(title, violations);
}

/**
 * Kuma's API keeps a resource's origin, zone and display name once computed (validateImmutableLabels):
 * an update may not change or drop them, answered as Kuma's "Could not update a resource".
 */
export function requireImmutableLabelsKept(current: Resource, input: ResourceInput): void {
  const next = computeLabels(input, ZONE_NAME);
  const violations = [KUMA_ORIGIN_LABEL, ZONE_TAG, DISPLAY_NAME_LABEL].flatMap((key): Violation[] => {
    const was = current.meta.labels[key];
    if (was === undefined || was === next[key]) return [];
    const message =
      next[key] === undefined
        ? `is immutable, cannot be removed (was ${JSON.stringify(was)})`
        : `is immutable, cannot be changed from ${JSON.stringify(was)} to ${JSON.stringify(next[key])}`;
    return [{ field: labelField(key), message }];
  });
  if (violations.length > 0) throw new ApiError(400, 'Could not update a resource', INVALID_RESOURCE_DETAIL, violations);
}
