import { fieldPath, indexPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { list, map, object } from './spec-shape.js';
import type { TargetRef, TargetRefKind } from './target-ref.js';
import { servedInteger } from './served-value.js';

/** Where a route sends traffic (Kuma's common BackendRef): a targetRef plus a weight and, for real resources, a port. */
export interface BackendRef extends TargetRef {
  /** Relative share of the traffic; Kuma's default is 1. */
  weight?: number;
  port?: number;
}

/** A BackendRef's JSON types, as both route policies' schemas give them: validateBackendRef reads them so typed (spec-shape.ts). */
export const backendRefShape = object({
  kind: 'string',
  name: 'string',
  namespace: 'string',
  mesh: 'string',
  sectionName: 'string',
  tags: map('string'),
  labels: map('string'),
  proxyTypes: list('string'),
  // Kuma's `*uint`; the route's cluster weight is a uint32 (their sum too: routeWeightProblems).
  weight: servedInteger('uint64', 'envoy.config.route.v3.WeightedCluster.ClusterWeight.weight'),
  port: servedInteger('uint32'),
}, ['kind']);

/** The kinds a route's backendRefs may name (MeshHTTPRoute's and MeshTCPRoute's validators). */
export const BACKEND_REF_KINDS: readonly TargetRefKind[] = ['MeshService', 'MeshServiceSubset', 'MeshExternalService', 'MeshMultiZoneService'];

/** Kuma's NameCharacterSet: resource names. */
const NAME_CHARACTERS = /^[0-9a-z.\-_]*$/;

/**
 * Kuma's checks of one backendRef (mesh.ValidateTargetRef for the backend kinds, then
 * validators.ValidateBackendRef), at `path`: the kind, the name, the fields the kind must not
 * have, and the port a MeshMultiZoneService needs.
 */
export function validateBackendRef(
  ref: BackendRef,
  path: string,
  violations: ViolationList,
  supportedKinds: readonly TargetRefKind[] = BACKEND_REF_KINDS,
): void {
  const at = (field: string) => (field === '' ? path : fieldPath(path, field));
  if (!ref.kind) {
    violations.add(at('kind'), 'must be defined');
    return;
  }
  if (!supportedKinds.includes(ref.kind)) {
    violations.add(at('kind'), `value '${ref.kind}' is not supported`);
    return;
  }
  const notSet = (field: keyof TargetRef) => {
    const value = ref[field];
    const set = typeof value === 'string' ? value !== '' : value !== undefined && Object.keys(value).length > 0;
    if (set) violations.add(at(field), `must not be set with kind ${ref.kind}`);
  };
  const name = ref.name ?? '';
  if (ref.kind === 'MeshServiceSubset') {
    if (name === '') violations.add(at('name'), `must be set when kind is ${ref.kind}`);
  }
  if (!NAME_CHARACTERS.test(name)) {
    violations.add(at('name'), "invalid characters: must consist of lower case alphanumeric characters, '-', '.' and '_'.");
  }
  notSet('mesh');
  notSet('proxyTypes');
  if (ref.kind === 'MeshServiceSubset') {
    notSet('labels');
    notSet('namespace');
    notSet('sectionName');
  } else {
    notSet('tags');
    const hasLabels = Object.keys(ref.labels ?? {}).length > 0;
    if (!hasLabels && name === '') violations.add(path, `name or labels must be set when kind is ${ref.kind}`);
    if (hasLabels && (name !== '' || (ref.namespace ?? '') !== '')) {
      violations.add(at('labels'), `either labels or name${ref.kind === 'MeshExternalService' ? '' : ' and namespace'} must be specified`);
    }
    if (ref.kind === 'MeshExternalService') notSet('sectionName');
  }
  if (ref.kind === 'MeshMultiZoneService' && ref.port === undefined) {
    violations.add(at('port'), 'must be defined with kind MeshMultiZoneService');
  }
}

/** The most a route's weights may add up to: Envoy sums them in a uint32, and gRPC refuses a larger sum (gRFC A28). */
const MAX_WEIGHT_SUM = 0xffff_ffff;

/** Every backendRef of a list, at `path[i]`, and their weights' sum (an absent weight is 1, as route-clusters.ts reads it). */
export function validateBackendRefs(refs: readonly BackendRef[], path: string, violations: ViolationList): void {
  refs.forEach((ref, index) => validateBackendRef(ref, indexPath(path, index), violations));
  const weights = refs.map((ref) => (typeof ref.weight === 'number' ? ref.weight : 1));
  // A weight out of range on its own is reported at its own path (served-value.ts).
  if (weights.some((weight) => weight > MAX_WEIGHT_SUM)) return;
  const sum = weights.reduce((total, weight) => total + weight, 0);
  if (sum > MAX_WEIGHT_SUM) violations.add(path, `weights add up to ${sum}, more than ${MAX_WEIGHT_SUM}: Envoy and gRPC refuse a route whose weights do not fit a uint32`);
}
