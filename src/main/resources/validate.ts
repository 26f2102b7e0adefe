// The rules of the Kuma universal resource model. One implementation reads both the API/YAML shape
// (flat: spec fields beside `type` and `name`) and an already-typed ResourceInput (spec nested).
// The spec is read as Kuma's protobuf JSON unmarshaller reads it (proto-json.ts, with the message
// descriptions of kuma-schema.ts), then checked by Kuma's own rules (dataplane-validator.ts,
// mesh-validator.ts); meta fields follow Kuma's meta_validator.go.
import { isPolicyType } from '../../shared/policy-types.js';
import { isMeshServiceModelType } from '../../shared/meshservice-types.js';
import { isMeshScoped, RESOURCE_TYPES } from '../../shared/resources.js';
import type { DataplaneSpec, MeshSpec, ResourceInput, ResourceType, SpecByType } from '../../shared/resources.js';
import { checkServiceModelSpec } from '../meshservice/validate.js';
import { POLICY_DESCRIPTORS } from '../policies/descriptors.js';
import { checkPolicySpec } from '../policies/core/validate-policy.js';
import { checkDataplaneSpec, type UncheckedDataplaneSpec } from './dataplane-validator.js';
import { keyPath } from './field-path.js';
import { checkCertLifetimeFloor } from './cert-lifetime-floor.js';
import { checkListenersDoNotClash } from './listener-clash.js';
import { checkMeshReference, checkResourceName } from './kuma-rules.js';
import { DATAPLANE_SPEC, MESH_SPEC } from './kuma-schema.js';
import { checkMeshCreation, checkMeshSpec, withoutDefaultMeshServicesMode } from './mesh-validator.js';
import { isJsonObject, readMessage } from './proto-json.js';
import { ValidationError, ViolationList } from './validation-error.js';

/**
 * Specs a body worker validated and carried back (see rememberValidatedSpec). A write validates its
 * input again whatever its entry point, and re-reading a spec of 60,000 tags took 0.4 s of the event
 * loop right after the worker had read it. Only those: a spec validated here may be changed before
 * it is written (tests do), one that crossed back goes from the worker's answer to the write as it is.
 */
const validatedSpecs = new WeakMap<object, ResourceType>();

/** A spec validateResource returned in a body worker, so that writing it does not read it again. */
export function rememberValidatedSpec(input: ResourceInput): void {
  if (typeof input.spec === 'object' && input.spec !== null) validatedSpecs.set(input.spec, input.type);
}

/** What the URL (or the node id) says the resource must be. */
export interface ExpectedResource<T extends ResourceType = ResourceType> {
  type?: T;
  mesh?: string;
  name?: string;
}

/**
 * Reads a resource in the Kuma API/YAML shape (`type`, `name`, `mesh`, `labels`, then spec fields; a
 * policy's spec under `spec`) into a ResourceInput. The read-only fields Kuma prints and kumactl sends back (`creationTime`, `modificationTime`,
 * `kri`) are tolerated and ignored; `version` asks for optimistic concurrency. Throws a ValidationError
 * naming every violation.
 */
export function validateResource<T extends ResourceType>(
  input: unknown,
  expected: ExpectedResource<T> & { type: T },
): ResourceInput<T>;
export function validateResource(input: unknown, expected?: ExpectedResource): ResourceInput;
export function validateResource(input: unknown, expected: ExpectedResource = {}): ResourceInput {
  if (!isJsonObject(input)) {
    throw new ValidationError(invalidResourceTitle({}, expected), [{ field: '', message: 'must be an object' }]);
  }
  const violations = new ViolationList();
  const { type, mesh, name, labels, version, creationTime, modificationTime, kri, ...rest } = input;
  // Kuma's policies and service model (its v1alpha1 resources) carry their spec under `spec` (and a
  // `status`, which a write ignores); Mesh and Dataplane beside the meta.
  // Only a string can name a type: String() of anything else may itself throw (`[{ toString: 0 }]`).
  const declared = expected.type ?? type;
  const spec = typeof declared === 'string' && hasNestedSpec(declared) ? rest.spec : rest;
  const resource = readResource({ type, mesh, name, labels, version, spec }, expected, violations);
  readOptional(creationTime, 'creationTime', violations, readString);
  readOptional(modificationTime, 'modificationTime', violations, readString);
  readOptional(kri, 'kri', violations, readString);
  violations.throwIfAny(invalidResourceTitle({ type, mesh, name }, expected));
  // Readers return undefined only after recording a violation, so without violations there is a resource.
  return resource!;
}

/** The same rules for an already-typed input: every write goes through them, whatever its entry point. */
export function validateResourceInput(input: ResourceInput): void {
  const violations = new ViolationList();
  const { type, name, labels, version, spec } = input;
  // A typed global resource says "no mesh" with ''; the rules see it as an absent field, as in the API shape.
  const mesh = !isMeshScoped(type) && input.mesh === '' ? undefined : input.mesh;
  const unchecked = { type, mesh, name, labels, version, spec };
  readResource(unchecked, {}, violations);
  violations.throwIfAny(invalidResourceTitle(unchecked, {}));
}

type Reader<T> = (value: unknown, path: string, violations: ViolationList) => T | undefined;

/** A resource whose fields have not been checked yet. `spec` holds the spec fields; `mesh` is undefined when absent. */
interface UncheckedResource {
  type: unknown;
  mesh: unknown;
  name: unknown;
  labels: unknown;
  version: unknown;
  spec: unknown;
}

/**
 * In Kuma's order: the body is read as the type the URL names (a body of another type is only a
 * mismatch), its spec is read and checked, and a spec with problems is answered with those alone;
 * then the URL is compared with the body, the meta is checked, and a new Mesh gets the manager's checks.
 */
function readResource(
  resource: UncheckedResource,
  expected: ExpectedResource,
  violations: ViolationList,
): ResourceInput | undefined {
  const type = expected.type ?? readRequired(resource.type, 'type', violations, readResourceType);
  const spec = readSpec(type, resource.spec, violations, resource);
  violations.throwIfAny(invalidResourceTitle(resource, expected));
  checkExpected(resource, expected, violations);
  const name = readRequired(resource.name, 'name', violations, readResourceName);
  const mesh = readMeshField(type, resource.mesh, violations);
  const labels = readOptional(resource.labels, 'labels', violations, readLabels) ?? {};
  const version = readOptional(resource.version, 'version', violations, readVersion);
  if (type === 'Mesh' && name !== undefined && spec !== undefined) checkMeshCreation(name, spec as MeshSpec, violations);
  if (type === undefined || name === undefined || mesh === undefined || spec === undefined) return undefined;
  return withoutUndefined({ type, mesh, name, labels, spec, version }) as ResourceInput;
}

/** A Mesh or a HostnameGenerator is global and has no `mesh`; every other type must name its mesh. */
function readMeshField(type: ResourceType | undefined, value: unknown, violations: ViolationList): string | undefined {
  if (type !== undefined && !isMeshScoped(type)) {
    if (!isAbsent(value)) violations.add('mesh', `must not be set: a ${type} does not belong to a mesh`);
    return '';
  }
  if (type !== undefined) return readRequired(value, 'mesh', violations, readMeshReference);
  return readOptional(value, 'mesh', violations, readMeshReference);
}

/**
 * The spec as Kuma's protobuf JSON unmarshaller reads it, then Kuma's rules, which run only on a spec read cleanly.
 * A policy's spec is read and checked by the policy validator (paths from `spec.`, as Kuma's policy validators say).
 */
function readSpec(
  type: ResourceType | undefined,
  spec: unknown,
  violations: ViolationList,
  meta: Pick<UncheckedResource, 'name' | 'labels'>,
): SpecByType[ResourceType] | undefined {
  if (type === undefined) return undefined; // Which fields are allowed depends on the type, which is already reported.
  if (typeof spec === 'object' && spec !== null && validatedSpecs.get(spec) === type) return spec as SpecByType[ResourceType];
  if (isMeshServiceModelType(type)) {
    const name = typeof meta.name === 'string' ? meta.name : undefined;
    const labels = isJsonObject(meta.labels) ? (meta.labels as Record<string, string>) : undefined;
    return checkServiceModelSpec(type, spec, { name, labels }, violations);
  }
  if (isPolicyType(type)) {
    // Kuma's schema requires it (its error has no field: `spec in body is required`).
    if (isAbsent(spec)) {
      violations.add('', 'spec in body is required');
      return undefined;
    }
    const descriptor = POLICY_DESCRIPTORS.find((candidate) => candidate.type === type)!;
    return checkPolicySpec(descriptor, spec, violations) as SpecByType[ResourceType] | undefined;
  }
  const readProblems = new ViolationList();
  const read = readMessage(type === 'Mesh' ? MESH_SPEC : DATAPLANE_SPEC, spec, '', readProblems);
  if (read === undefined || !readProblems.isEmpty) {
    violations.addAll('', readProblems.violations);
    return undefined;
  }
  const before = violations.violations.length;
  if (type === 'Mesh') {
    checkMeshSpec(read as MeshSpec, violations);
    if (violations.violations.length === before) checkCertLifetimeFloor((read as MeshSpec).mtls, violations);
  } else {
    checkDataplaneSpec(read as UncheckedDataplaneSpec, violations);
    // Kuma's rules passed, so the spec is a DataplaneSpec; then meshdesk's own protective rule.
    if (violations.violations.length === before) checkListenersDoNotClash((read as unknown as DataplaneSpec).networking, violations);
  }
  if (violations.violations.length !== before) return undefined;
  return type === 'Mesh' ? withoutDefaultMeshServicesMode(read as MeshSpec) : (read as unknown as DataplaneSpec);
}

// ---- Meta readers -----------------------------------------------------------------------------------------

/** YAML's `field:` with nothing after it is null; like protobuf JSON, treat null as "not set". */
function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

function readRequired<T>(value: unknown, path: string, violations: ViolationList, read: Reader<T>): T | undefined {
  if (isAbsent(value)) {
    violations.add(path, 'cannot be empty');
    return undefined;
  }
  return read(value, path, violations);
}

function readOptional<T>(value: unknown, path: string, violations: ViolationList, read: Reader<T>): T | undefined {
  return isAbsent(value) ? undefined : read(value, path, violations);
}

function readString(value: unknown, path: string, violations: ViolationList): string | undefined {
  if (typeof value === 'string') return value;
  // `version: 1` in YAML is a number: say how to make it a string.
  const hint = typeof value === 'number' || typeof value === 'boolean' ? ` (quote it: "${String(value)}")` : '';
  violations.add(path, `must be a string${hint}`);
  return undefined;
}

/** string → string with non-empty keys (Kuma's API checks a Dataplane's `kuma.io/workload` on create: api/workload-label.ts). */
function readLabels(value: unknown, path: string, violations: ViolationList): Record<string, string> | undefined {
  if (!isJsonObject(value)) {
    violations.add(path, 'must be an object');
    return undefined;
  }
  const entries: [string, string][] = [];
  for (const [key, entryValue] of Object.entries(value)) {
    const entryPath = keyPath(path, key);
    if (key === '') violations.add(entryPath, 'key must be non-empty');
    const text = readString(entryValue, entryPath, violations);
    if (text !== undefined) entries.push([key, text]);
  }
  // fromEntries defines own properties: a "__proto__" key stays a key instead of replacing the prototype.
  return Object.fromEntries(entries);
}

function readVersion(value: unknown, path: string, violations: ViolationList): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  violations.add(path, 'must be a positive integer');
  return undefined;
}

function readResourceType(value: unknown, path: string, violations: ViolationList): ResourceType | undefined {
  if ((RESOURCE_TYPES as readonly unknown[]).includes(value)) return value as ResourceType;
  violations.add(path, `must be one of ${RESOURCE_TYPES.join(', ')}`);
  return undefined;
}

/** Kuma's ValidateMeta: a lowercase RFC 1123 subdomain of at most 253 characters, Meshes included. */
function readResourceName(value: unknown, path: string, violations: ViolationList): string | undefined {
  const name = readString(value, path, violations);
  if (name === undefined) return undefined;
  const before = violations.violations.length;
  checkResourceName(name, path, violations);
  return violations.violations.length === before ? name : undefined;
}

/** The mesh a resource names: Kuma's older, wider rule, so that meshes made before the RFC 1123 rule still work. */
function readMeshReference(value: unknown, path: string, violations: ViolationList): string | undefined {
  const mesh = readString(value, path, violations);
  if (mesh === undefined) return undefined;
  const before = violations.violations.length;
  checkMeshReference(mesh, path, violations);
  return violations.violations.length === before ? mesh : undefined;
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

// ---- Expected identity and titles ------------------------------------------------------------------------

function checkExpected(resource: UncheckedResource, expected: ExpectedResource, violations: ViolationList): void {
  // Kuma's message; kumactl prints it as it is.
  const mismatch = (field: 'type' | 'mesh' | 'name', fromUrl: string | undefined, inBody: unknown): void => {
    const text = isAbsent(inBody) ? '' : inBody;
    if (fromUrl !== undefined && typeof text === 'string' && text !== fromUrl) {
      violations.add(field, `${field} from the URL has to be the same as in body`);
    }
  };
  mismatch('name', expected.name, resource.name);
  // A global resource has no mesh: its URL has none to compare (a `mesh` in its body is already a violation).
  if (typeof resource.type !== 'string' || !RESOURCE_TYPES.includes(resource.type as ResourceType) || isMeshScoped(resource.type as ResourceType)) {
    mismatch('mesh', expected.mesh, resource.mesh);
  }
  mismatch('type', expected.type, resource.type);
}

/** `Dataplane "backend-1" in mesh "default" is not valid`: the errors say which resource they are about. */
function invalidResourceTitle(resource: Partial<UncheckedResource>, expected: ExpectedResource): string {
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
  const type = expected.type ?? text(resource.type);
  const name = expected.name ?? text(resource.name);
  const mesh = expected.mesh ?? text(resource.mesh);
  if (type === undefined || name === undefined) return 'resource is not valid';
  return (type !== undefined && RESOURCE_TYPES.includes(type as ResourceType) && !isMeshScoped(type as ResourceType)) || mesh === undefined
    ? `${type} "${name}" is not valid`
    : `${type} "${name}" in mesh "${mesh}" is not valid`;
}

/** The types whose spec is nested under `spec` in the API shape: Kuma's v1alpha1 resources. */
export function hasNestedSpec(type: string): boolean {
  return isPolicyType(type) || isMeshServiceModelType(type);
}
