// The rules of the Kuma universal resource model. One implementation reads both the API/YAML shape
// (flat: spec fields beside `type` and `name`) and an already-typed ResourceInput (spec nested).
// Readers take `(value, path, violations)`, record every broken rule at its field path and return the
// typed value; a value read after a violation is never handed out, because the caller throws first.
import { isIP } from 'node:net';
import { PROTOCOLS, PROTOCOL_TAG, RESOURCE_TYPES, SERVICE_TAG } from '../../shared/resources.js';
import type {
  DataplaneSpec,
  Inbound,
  MeshSpec,
  Outbound,
  ResourceInput,
  ResourceType,
  Tags,
} from '../../shared/resources.js';
import { fieldPath, indexPath, keyPath } from './field-path.js';
import { ValidationError, ViolationList } from './validation-error.js';

/** What the URL (or the node id) says the resource must be. */
export interface ExpectedResource<T extends ResourceType = ResourceType> {
  type?: T;
  mesh?: string;
  name?: string;
}

/**
 * Reads a resource in the Kuma API/YAML shape (`type`, `name`, `mesh`, `labels`, then spec fields) into a
 * ResourceInput. Read-only meta fields (`creationTime`, `modificationTime`) are tolerated so that a GET→PUT round
 * trip works; `version` asks for optimistic concurrency. Throws a ValidationError naming every violation.
 */
export function validateResource<T extends ResourceType>(
  input: unknown,
  expected: ExpectedResource<T> & { type: T },
): ResourceInput<T>;
export function validateResource(input: unknown, expected?: ExpectedResource): ResourceInput;
export function validateResource(input: unknown, expected: ExpectedResource = {}): ResourceInput {
  if (!isPlainObject(input)) {
    throw new ValidationError(invalidResourceTitle({}, expected), [{ field: '', message: 'must be an object' }]);
  }
  const violations = new ViolationList();
  const { type, mesh, name, labels, version, creationTime, modificationTime, ...spec } = input;
  const unchecked = { type, mesh, name, labels, version, spec };
  const resource = readResource(unchecked, violations);
  readOptional(creationTime, 'creationTime', violations, readString);
  readOptional(modificationTime, 'modificationTime', violations, readString);
  checkExpected(unchecked, expected, violations);
  violations.throwIfAny(invalidResourceTitle(unchecked, expected));
  // Readers return undefined only after recording a violation, so without violations there is a resource.
  return resource!;
}

/** The same rules for an already-typed input: every write goes through them, whatever its entry point. */
export function validateResourceInput(input: ResourceInput): void {
  const violations = new ViolationList();
  const { type, name, labels, version, spec } = input;
  // A typed Mesh says "no mesh" with ''; the rules see it as an absent field, as in the API shape.
  const mesh = type === 'Mesh' && input.mesh === '' ? undefined : input.mesh;
  const unchecked = { type, mesh, name, labels, version, spec };
  readResource(unchecked, violations);
  violations.throwIfAny(invalidResourceTitle(unchecked, {}));
}

type JsonObject = Record<string, unknown>;
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

const PORT_RANGE = { min: 1, max: 65535 };
const RESOURCE_NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
const RESOURCE_NAME_MAX_LENGTH = 253;
const MESH_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const MESH_NAME_MAX_LENGTH = 63;
// Kuma's character sets for tags: they end up in cluster names, stats and `xds:///<service>` targets.
const TAG_NAME = /^[a-zA-Z0-9.\-_:/]+$/;
const TAG_VALUE = /^[a-zA-Z0-9.\-_:]+$/;
const DNS_LABEL = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
/** Outbound listeners and Envoy's admin bind the loopback unless told otherwise. */
const LOOPBACK = '127.0.0.1';

function readResource(resource: UncheckedResource, violations: ViolationList): ResourceInput | undefined {
  const type = readRequired(resource.type, 'type', violations, readResourceType);
  const name = readRequired(resource.name, 'name', violations, type === 'Mesh' ? readMeshName : readResourceName);
  const mesh = readMeshField(type, resource.mesh, violations);
  const labels = readOptional(resource.labels, 'labels', violations, readStringMap) ?? {};
  const version = readOptional(resource.version, 'version', violations, readVersion);
  const spec = readSpec(type, resource.spec, violations);
  if (type === undefined || name === undefined || mesh === undefined || spec === undefined) return undefined;
  return withoutUndefined({ type, mesh, name, labels, spec, version }) as ResourceInput;
}

/** A Mesh is global and has no `mesh`; a Dataplane must name its mesh. */
function readMeshField(type: ResourceType | undefined, value: unknown, violations: ViolationList): string | undefined {
  if (type === 'Mesh') {
    if (!isAbsent(value)) violations.add('mesh', 'must not be set: a Mesh does not belong to a mesh');
    return '';
  }
  if (type === 'Dataplane') return readRequired(value, 'mesh', violations, readMeshName);
  return readOptional(value, 'mesh', violations, readMeshName);
}

function readSpec(
  type: ResourceType | undefined,
  spec: unknown,
  violations: ViolationList,
): MeshSpec | DataplaneSpec | undefined {
  const specObject = readObject(spec, '', violations);
  if (specObject === undefined) return undefined;
  switch (type) {
    case 'Mesh':
      rejectUnknownFields(specObject, [], '', violations);
      return {};
    case 'Dataplane':
      return readDataplaneSpec(specObject, violations);
    case undefined:
      return undefined; // Which fields are allowed depends on the type, which is already reported.
  }
}

function readDataplaneSpec(spec: JsonObject, violations: ViolationList): DataplaneSpec | undefined {
  rejectUnknownFields(spec, ['networking'], '', violations);
  const networking = readRequired(spec.networking, 'networking', violations, readNetworking);
  return networking && { networking };
}

const NETWORKING_FIELDS = ['address', 'advertisedAddress', 'inbound', 'outbound', 'admin'];

function readNetworking(value: unknown, path: string, violations: ViolationList): DataplaneSpec['networking'] | undefined {
  const networking = readObject(value, path, violations);
  if (networking === undefined) return undefined;
  rejectUnknownFields(networking, NETWORKING_FIELDS, path, violations);
  const field = (name: string): string => fieldPath(path, name);

  const address = readRequired(networking.address, field('address'), violations, readDataplaneAddress);
  const advertisedAddress = readOptional(networking.advertisedAddress, field('advertisedAddress'), violations, readHost);
  const inbound = readOptional(networking.inbound, field('inbound'), violations, arrayOf(readInbound));
  const outbound = readOptional(networking.outbound, field('outbound'), violations, arrayOf(readOutbound));
  const admin = readOptional(networking.admin, field('admin'), violations, readAdmin);

  // Kuma requires an inbound; proxyless gRPC clients have only outbounds, so either will do.
  if (isAbsentOrEmptyArray(networking.inbound) && isAbsentOrEmptyArray(networking.outbound)) {
    violations.add(path, 'must have at least one inbound or outbound');
  }
  checkListenersDoNotClash(
    [
      ...(inbound ?? []).map((item, index) =>
        item && { path: indexPath(field('inbound'), index), address: item.address ?? address, port: item.port },
      ),
      ...(outbound ?? []).map((item, index) =>
        item && { path: indexPath(field('outbound'), index), address: item.address ?? LOOPBACK, port: item.port },
      ),
      admin && { path: field('admin'), address: LOOPBACK, port: admin.port },
    ],
    violations,
  );

  if (address === undefined) return undefined;
  return withoutUndefined({
    address,
    advertisedAddress,
    inbound: inbound?.filter(isDefined),
    outbound: outbound?.filter(isDefined),
    admin,
  });
}

const INBOUND_FIELDS = ['port', 'servicePort', 'address', 'serviceAddress', 'tags'];

function readInbound(value: unknown, path: string, violations: ViolationList): Inbound | undefined {
  const inbound = readObject(value, path, violations);
  if (inbound === undefined) return undefined;
  rejectUnknownFields(inbound, INBOUND_FIELDS, path, violations);
  const field = (name: string): string => fieldPath(path, name);

  const port = readRequired(inbound.port, field('port'), violations, readPort);
  const servicePort = readOptional(inbound.servicePort, field('servicePort'), violations, readPort);
  // Envoy binds these: a host name cannot be bound.
  const address = readOptional(inbound.address, field('address'), violations, readIpAddress);
  const serviceAddress = readOptional(inbound.serviceAddress, field('serviceAddress'), violations, readIpAddress);
  const tags = readTags(inbound.tags, field('tags'), violations);
  if (port === undefined || tags === undefined) return undefined;
  return withoutUndefined({ port, servicePort, address, serviceAddress, tags });
}

const OUTBOUND_FIELDS = ['port', 'address', 'tags'];

function readOutbound(value: unknown, path: string, violations: ViolationList): Outbound | undefined {
  const outbound = readObject(value, path, violations);
  if (outbound === undefined) return undefined;
  rejectUnknownFields(outbound, OUTBOUND_FIELDS, path, violations);
  const field = (name: string): string => fieldPath(path, name);

  const port = readRequired(outbound.port, field('port'), violations, readPort);
  const address = readOptional(outbound.address, field('address'), violations, readIpAddress);
  const tags = readTags(outbound.tags, field('tags'), violations);
  if (port === undefined || tags === undefined) return undefined;
  return withoutUndefined({ port, address, tags });
}

function readAdmin(value: unknown, path: string, violations: ViolationList): { port: number } | undefined {
  const admin = readObject(value, path, violations);
  if (admin === undefined) return undefined;
  rejectUnknownFields(admin, ['port'], path, violations);
  const port = readRequired(admin.port, fieldPath(path, 'port'), violations, readPort);
  return port === undefined ? undefined : { port };
}

interface Listener {
  /** The inbound, outbound or admin that opens it, e.g. `networking.inbound[0]`. */
  path: string;
  address: string | undefined;
  port: number;
}

/** Two listeners on one address and port cannot both bind: Envoy would reject the whole configuration. */
function checkListenersDoNotClash(listeners: (Listener | undefined)[], violations: ViolationList): void {
  const firstByAddressAndPort = new Map<string, string>();
  for (const listener of listeners) {
    if (listener?.address === undefined) continue;
    const key = JSON.stringify([listener.address, listener.port]);
    const first = firstByAddressAndPort.get(key);
    if (first === undefined) {
      firstByAddressAndPort.set(key, listener.path);
    } else {
      violations.add(
        fieldPath(listener.path, 'port'),
        `port ${listener.port} on ${listener.address} is already used by ${first}`,
      );
    }
  }
}

/** Tags are required wherever they appear: they must at least name the service. */
function readTags(value: unknown, path: string, violations: ViolationList): Tags | undefined {
  const serviceRequired = `"${SERVICE_TAG}" is required`;
  if (isAbsent(value)) {
    violations.add(path, serviceRequired);
    return undefined;
  }
  const tags = readStringMap(value, path, violations);
  if (tags === undefined) return undefined;
  for (const [name, tagValue] of Object.entries(tags)) {
    if (name === '') continue; // Already reported by readStringMap.
    const tagPath = keyPath(path, name);
    if (!TAG_NAME.test(name)) {
      violations.add(tagPath, 'tag name must consist of alphanumeric characters, dots, dashes, colons, slashes and underscores');
    }
    if (tagValue === '') {
      violations.add(tagPath, 'tag value must be non-empty');
    } else if (!TAG_VALUE.test(tagValue)) {
      violations.add(tagPath, 'tag value must consist of alphanumeric characters, dots, dashes, colons and underscores');
    }
  }
  // Asked of the raw object: a service tag that is present but not a string is already reported.
  if (!Object.hasOwn(value as object, SERVICE_TAG)) violations.add(path, serviceRequired);
  const protocol = Object.hasOwn(tags, PROTOCOL_TAG) ? tags[PROTOCOL_TAG] : undefined;
  if (protocol !== undefined && !(PROTOCOLS as readonly string[]).includes(protocol)) {
    violations.add(keyPath(path, PROTOCOL_TAG), `must be one of ${PROTOCOLS.join(', ')}`);
  }
  return tags;
}

// ---- Generic readers -------------------------------------------------------------------------------------

/** YAML's `field:` with nothing after it is null; like protobuf JSON, treat null as "not set". */
function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

function isAbsentOrEmptyArray(value: unknown): boolean {
  return isAbsent(value) || (Array.isArray(value) && value.length === 0);
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function readRequired<T>(value: unknown, path: string, violations: ViolationList, read: Reader<T>): T | undefined {
  if (isAbsent(value)) {
    violations.add(path, 'is required');
    return undefined;
  }
  return read(value, path, violations);
}

function readOptional<T>(value: unknown, path: string, violations: ViolationList, read: Reader<T>): T | undefined {
  return isAbsent(value) ? undefined : read(value, path, violations);
}

function readObject(value: unknown, path: string, violations: ViolationList): JsonObject | undefined {
  if (isPlainObject(value)) return value;
  violations.add(path, 'must be an object');
  return undefined;
}

/** Unknown fields are violations, never dropped: a typo must not silently change what a proxy gets. */
function rejectUnknownFields(
  object: JsonObject,
  knownFields: readonly string[],
  path: string,
  violations: ViolationList,
): void {
  for (const name of Object.keys(object)) {
    if (!knownFields.includes(name)) violations.add(fieldPath(path, name), 'unknown field');
  }
}

/** Keeps each item's index, so that later checks (listener clashes) still name the right item. */
function arrayOf<T>(readItem: Reader<T>): Reader<(T | undefined)[]> {
  return (value, path, violations) => {
    if (!Array.isArray(value)) {
      violations.add(path, 'must be an array');
      return undefined;
    }
    return value.map((item, index) => readItem(item, indexPath(path, index), violations));
  };
}

function readString(value: unknown, path: string, violations: ViolationList): string | undefined {
  if (typeof value === 'string') return value;
  // `version: 1` in YAML is a number: say how to make it a string.
  const hint = typeof value === 'number' || typeof value === 'boolean' ? ` (quote it: "${String(value)}")` : '';
  violations.add(path, `must be a string${hint}`);
  return undefined;
}

/** string → string; keys must be non-empty. Used for labels and, with more rules, for tags. */
function readStringMap(value: unknown, path: string, violations: ViolationList): Record<string, string> | undefined {
  const object = readObject(value, path, violations);
  if (object === undefined) return undefined;
  const entries: [string, string][] = [];
  for (const [key, entryValue] of Object.entries(object)) {
    const entryPath = keyPath(path, key);
    if (key === '') violations.add(entryPath, 'key must be non-empty');
    const text = readString(entryValue, entryPath, violations);
    if (text !== undefined) entries.push([key, text]);
  }
  // fromEntries defines own properties: a "__proto__" key stays a key instead of replacing the prototype.
  return Object.fromEntries(entries);
}

function readInteger(value: unknown, path: string, violations: ViolationList): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  violations.add(path, 'must be an integer');
  return undefined;
}

function readPort(value: unknown, path: string, violations: ViolationList): number | undefined {
  const port = readInteger(value, path, violations);
  if (port === undefined) return undefined;
  if (port < PORT_RANGE.min || port > PORT_RANGE.max) {
    violations.add(path, `must be in the range [${PORT_RANGE.min}, ${PORT_RANGE.max}]`);
    return undefined;
  }
  return port;
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

function readResourceName(value: unknown, path: string, violations: ViolationList): string | undefined {
  return readName(value, path, violations, {
    pattern: RESOURCE_NAME,
    maxLength: RESOURCE_NAME_MAX_LENGTH,
    rule: `must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
  });
}

/** No '.' in a mesh name: a proxy's node id is `<mesh>.<name>` and splits at the first '.'. */
function readMeshName(value: unknown, path: string, violations: ViolationList): string | undefined {
  return readName(value, path, violations, {
    pattern: MESH_NAME,
    maxLength: MESH_NAME_MAX_LENGTH,
    rule: `must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (no '.': node ids are "<mesh>.<name>")`,
  });
}

function readName(
  value: unknown,
  path: string,
  violations: ViolationList,
  format: { pattern: RegExp; maxLength: number; rule: string },
): string | undefined {
  const name = readString(value, path, violations);
  if (name === undefined) return undefined;
  if (name === '') {
    violations.add(path, 'is required');
    return undefined;
  }
  const tooLong = name.length > format.maxLength;
  const malformed = !format.pattern.test(name);
  if (tooLong) violations.add(path, `must be at most ${format.maxLength} characters`);
  if (malformed) violations.add(path, format.rule);
  return tooLong || malformed ? undefined : name;
}

function readIpAddress(value: unknown, path: string, violations: ViolationList): string | undefined {
  const address = readString(value, path, violations);
  if (address === undefined) return undefined;
  if (isIP(address) !== 0) return address;
  violations.add(path, 'must be a valid IP address');
  return undefined;
}

/** An IP address or a domain name, as other proxies and clients reach this one. */
function readHost(value: unknown, path: string, violations: ViolationList): string | undefined {
  const host = readString(value, path, violations);
  if (host === undefined) return undefined;
  if (isIP(host) !== 0 || isDomainName(host)) return host;
  violations.add(path, 'must be a valid IP address or domain name');
  return undefined;
}

/** Other proxies connect to this address: the wildcard addresses would send them nowhere. */
function readDataplaneAddress(value: unknown, path: string, violations: ViolationList): string | undefined {
  const host = readHost(value, path, violations);
  if (host === '0.0.0.0' || host === '::') {
    violations.add(path, 'must not be 0.0.0.0 or ::');
    return undefined;
  }
  return host;
}

function isDomainName(host: string): boolean {
  const labels = host.split('.');
  // An all-numeric last label is a mistyped IP address (999.0.0.1), never a top-level domain.
  return host.length <= 253 && labels.every((label) => DNS_LABEL.test(label)) && !/^[0-9]+$/.test(labels.at(-1)!);
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

// ---- Expected identity and titles ------------------------------------------------------------------------

function checkExpected(resource: UncheckedResource, expected: ExpectedResource, violations: ViolationList): void {
  const mismatch = (field: 'type' | 'mesh' | 'name', fromUrl: string | undefined, inBody: unknown): void => {
    if (fromUrl !== undefined && typeof inBody === 'string' && inBody !== fromUrl) {
      violations.add(field, `${field} from the URL is "${fromUrl}", ${field} in the body is "${inBody}"`);
    }
  };
  mismatch('type', expected.type, resource.type);
  mismatch('name', expected.name, resource.name);
  // A Mesh has no mesh: its URL has none to compare (a `mesh` in its body is already a violation).
  if (resource.type !== 'Mesh') mismatch('mesh', expected.mesh, resource.mesh);
}

/** `Dataplane "backend-1" in mesh "default" is not valid`: the errors say which resource they are about. */
function invalidResourceTitle(resource: Partial<UncheckedResource>, expected: ExpectedResource): string {
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
  const type = expected.type ?? text(resource.type);
  const name = expected.name ?? text(resource.name);
  const mesh = expected.mesh ?? text(resource.mesh);
  if (type === undefined || name === undefined) return 'resource is not valid';
  return type === 'Mesh' || mesh === undefined
    ? `${type} "${name}" is not valid`
    : `${type} "${name}" in mesh "${mesh}" is not valid`;
}
