// Rules Kuma's validators share (pkg/core/resources/apis/mesh/{validators.go,meta_validator.go},
// pkg/core/metadata/protocol.go), with Kuma's messages.
import { isIP } from 'node:net';
import { SERVICE_TAG } from '../../shared/resources.js';
import { keyPath } from './field-path.js';
import type { ViolationList } from './validation-error.js';

export const PORT_RANGE_MESSAGE = 'port must be in the range [1, 65535]';

/** ValidatePort: absent is 0, as in the proto. */
export function checkPort(port: number | undefined, path: string, violations: ViolationList): void {
  if (port === undefined || port === 0 || port > 65535) violations.add(path, PORT_RANGE_MESSAGE);
}

/** Go's net.ParseIP: IPv4 or IPv6, without a zone. */
export function isGoIp(address: string): boolean {
  return isIP(address) !== 0 && !address.includes('%');
}

// govalidator.IsDNSName
const DNS_NAME = /^([a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})(\.[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})*[._]?$/;
export function isDnsName(name: string): boolean {
  return name !== '' && name.replaceAll('.', '').length <= 255 && !isGoIp(name) && DNS_NAME.test(name);
}

/** The protocols Kuma's ParseProtocol knows (any case); the hint lists only SupportedProtocols, as Kuma's does. */
const KNOWN_PROTOCOLS = ['http', 'http2', 'tcp', 'tls', 'grpc', 'kafka', 'mysql'];
export function parseProtocol(value: string): string | undefined {
  const lower = value.toLowerCase();
  return KNOWN_PROTOCOLS.includes(lower) ? lower : undefined;
}
export const PROTOCOLS_HINT = 'Allowed values: grpc, http, http2, kafka, tcp';

const TAG_NAME = /^[a-zA-Z0-9.\-_:/]*$/;
const TAG_VALUE = /^[a-zA-Z0-9.\-_:]*$/;

export interface TagsOptions {
  requireService?: boolean;
  requireAtLeastOne?: boolean;
  /** Runs first, on the whole map (Kuma's ExtraTagsValidators). */
  checkAll?: (tags: Record<string, string>, path: string, violations: ViolationList) => void;
  /** Selectors also allow `*` as a value. */
  selector?: boolean;
}

/** ValidateTags / ValidateSelector: keys in Go's sort order, then the service requirement. */
export function checkTags(
  tags: Record<string, string> | undefined,
  path: string,
  violations: ViolationList,
  options: TagsOptions = {},
): void {
  const map = tags ?? {};
  const keys = Object.keys(map).sort(compareBytes);
  if (options.requireAtLeastOne && keys.length === 0) violations.add(path, 'must have at least one tag');
  options.checkAll?.(map, path, violations);
  for (const key of keys) {
    const value = map[key]!;
    if (key === '') violations.add(path, 'tag name must be non-empty');
    if (!TAG_NAME.test(key)) {
      violations.add(keyPath(path, key), 'tag name must consist of alphanumeric characters, dots, dashes, slashes and underscores');
    }
    if (value === '') violations.add(keyPath(path, key), 'tag value must be non-empty');
    if (options.selector) {
      if (!(TAG_NAME.test(value) || value === '*')) {
        violations.add(keyPath(path, key), 'tag value must consist of alphanumeric characters, dots, dashes, slashes and underscores or be "*"');
      }
    } else if (!TAG_VALUE.test(value)) {
      violations.add(keyPath(path, key), 'tag value must consist of alphanumeric characters, dots, dashes and underscores');
    }
  }
  if (options.requireService && !(SERVICE_TAG in map)) {
    violations.add(path, `mandatory tag "${SERVICE_TAG}" is missing`);
  }
}

/** Go's sort.Strings: byte order, which for these ASCII names is code unit order. */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- Names (meta_validator.go) -----------------------------------------------------------------------

const IDENTIFIER = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const IDENTIFIER_MESSAGE =
  "invalid characters. A lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
/** A resource's `mesh` is checked against the older, wider rule: meshes made before the RFC 1123 rule keep working. */
const BACKWARD_COMPATIBLE_NAME = /^[0-9a-z-_.]*$/;
const BACKWARD_COMPATIBLE_MESSAGE =
  "invalid characters. Valid characters are numbers, lowercase latin letters and '-', '_', '.' symbols.";

function checkIdentifier(value: string, pattern: RegExp, message: string, path: string, violations: ViolationList): void {
  if (value === '') violations.add(path, 'cannot be empty');
  else if (value.length > 253) violations.add(path, 'value length must less or equal 253');
  else if (!pattern.test(value)) violations.add(path, message);
}

/** A resource name: a lowercase RFC 1123 subdomain. */
export function checkResourceName(name: string, path: string, violations: ViolationList): void {
  checkIdentifier(name, IDENTIFIER, IDENTIFIER_MESSAGE, path, violations);
}

/** The mesh a resource belongs to. */
export function checkMeshReference(mesh: string, path: string, violations: ViolationList): void {
  checkIdentifier(mesh, BACKWARD_COMPATIBLE_NAME, BACKWARD_COMPATIBLE_MESSAGE, path, violations);
}

// ---- Go's url.ParseRequestURI, as far as a path goes -----------------------------------------------------

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
const CONTROL = /[\u0000-\u001f\u007f]/;
const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;

export function isRequestUri(text: string): boolean {
  if (text === '' || CONTROL.test(text) || BAD_ESCAPE.test(text)) return false;
  return text === '*' || text.startsWith('/') || SCHEME.test(text);
}
