// Kuma v2.14.3's rules for the service model's resources: the OpenAPI schema of each type (rest.yaml:
// JSON types, enums, required fields, defaults; fields it does not name are dropped, as Kubernetes'
// structural schemas prune them) and then each type's validator (pkg/core/resources/apis/*/api/
// v1alpha1/validator.go, hostnamegenerator validate.go), with Kuma's paths and messages.
import type {
  HostnameGeneratorSpec,
  MeshExternalServiceSpec,
  MeshMultiZoneServiceSpec,
  MeshServiceModelType,
  MeshServiceSpec,
} from '../../shared/meshservice-types.js';
import { DISPLAY_NAME_LABEL } from '../../shared/meshservice-types.js';
import { fieldPath, indexPath } from '../resources/field-path.js';
import { isDnsName, isGoIp } from '../resources/kuma-rules.js';
import type { ViolationList } from '../resources/validation-error.js';
import { list, map, object, oneOf, readShape, type SpecShape } from '../policies/core/spec-shape.js';
import { parseTemplate, renderTemplate, TemplateError } from './template.js';
import { dns1123SubdomainProblems } from './dns-names.js';

const PROTOCOLS = ['tcp', 'http', 'http2', 'grpc', 'kafka', 'mysql', 'tls'];
const MAX_DISPLAY_NAME = 63;

const MATCH_LABELS = object({ matchLabels: map('string') });

const SHAPES: Record<MeshServiceModelType, SpecShape> = {
  MeshService: object({
    state: oneOf('Available', 'Unavailable'),
    selector: object({ dataplaneTags: map('string'), dataplaneRef: object({ name: 'string' }), dataplaneLabels: MATCH_LABELS }),
    ports: list(object({ name: 'string', port: 'integer', targetPort: 'int-or-string', appProtocol: 'string' }, ['port'])),
    identities: list(object({ type: oneOf('ServiceTag', 'SpiffeID'), value: 'string' }, ['type', 'value'])),
  }),
  MeshExternalService: object(
    {
      match: object({ type: oneOf('HostnameGenerator'), port: 'integer', protocol: oneOf('tcp', 'grpc', 'http', 'http2') }, ['port']),
      endpoints: list(object({ address: 'string', port: 'integer', priority: 'integer' }, ['address', 'port'])),
      tls: 'any',
      extension: object({ type: 'string', config: 'any' }, ['type']),
    },
    ['match'],
  ),
  MeshMultiZoneService: object(
    {
      selector: object({ meshService: MATCH_LABELS }, ['meshService']),
      ports: list(object({ name: 'string', port: 'integer', appProtocol: 'string' }, ['port'])),
    },
    ['ports', 'selector'],
  ),
  HostnameGenerator: object(
    {
      selector: object({ meshService: MATCH_LABELS, meshExternalService: MATCH_LABELS, meshMultiZoneService: MATCH_LABELS }),
      template: 'string',
      extension: object({ type: 'string', config: 'any' }, ['type']),
    },
    ['template'],
  ),
};

/** Reads a service-model spec (schema, defaults, then the type's validator); undefined when it has violations. */
export function checkServiceModelSpec(
  type: MeshServiceModelType,
  spec: unknown,
  meta: { name: string | undefined; labels: Record<string, string> | undefined },
  violations: ViolationList,
): MeshServiceSpec | MeshExternalServiceSpec | MeshMultiZoneServiceSpec | HostnameGeneratorSpec | undefined {
  if (spec === undefined || spec === null) {
    violations.add('', 'spec in body is required');
    return undefined;
  }
  const before = violations.violations.length;
  const shape = SHAPES[type];
  const read = readShape(spec, shape, 'spec', violations);
  if (violations.violations.length !== before) return undefined;
  const pruned = withDefaults(type, prune(read, shape) as Record<string, unknown>);
  const displayName = meta.labels?.[DISPLAY_NAME_LABEL] ?? meta.name ?? '';
  switch (type) {
    case 'MeshService':
      checkMeshService(pruned as MeshServiceSpec, displayName, violations);
      break;
    case 'MeshExternalService':
      checkMeshExternalService(pruned as MeshExternalServiceSpec, displayName, violations);
      break;
    case 'MeshMultiZoneService':
      checkMeshMultiZoneService(pruned as MeshMultiZoneServiceSpec, violations);
      break;
    case 'HostnameGenerator':
      checkHostnameGenerator(pruned as HostnameGeneratorSpec, violations);
      break;
  }
  return violations.violations.length === before ? (pruned as MeshServiceSpec) : undefined;
}

/** Keeps only the fields the schema names (`any` values whole). */
function prune(value: unknown, shape: SpecShape): unknown {
  if (value === undefined || shape === 'any' || typeof shape === 'string' || 'oneOf' in shape || 'served' in shape || 'text' in shape) return value;
  if ('list' in shape) return (value as unknown[]).map((item) => prune(item, shape.list));
  const entries = Object.entries(value as Record<string, unknown>);
  if ('map' in shape) return Object.fromEntries(entries.map(([key, item]) => [key, prune(item, shape.map)]));
  return Object.fromEntries(
    entries.filter(([field]) => Object.hasOwn(shape.object, field)).map(([field, item]) => [field, prune(item, shape.object[field]!)]),
  );
}

/** The schema's defaults: a MeshService starts Unavailable; ports speak tcp unless told. */
function withDefaults(type: MeshServiceModelType, spec: Record<string, unknown>): Record<string, unknown> {
  if (type === 'MeshService') {
    const { ports, ...rest } = spec as MeshServiceSpec;
    return {
      state: 'Unavailable',
      ...rest,
      ...(ports && { ports: ports.map((port) => ({ ...port, appProtocol: port.appProtocol ?? 'tcp' })) }),
    };
  }
  if (type === 'MeshMultiZoneService') {
    const { ports, ...rest } = spec as MeshMultiZoneServiceSpec;
    return { ...rest, ...(ports && { ports: ports.map((port) => ({ ...port, appProtocol: port.appProtocol ?? 'tcp' })) }) };
  }
  if (type === 'MeshExternalService') {
    const { match, ...rest } = spec as MeshExternalServiceSpec;
    return { match: { type: 'HostnameGenerator', protocol: 'tcp', ...match }, ...rest };
  }
  return spec;
}

function checkDisplayName(displayName: string, violations: ViolationList): void {
  if (displayName.length > MAX_DISPLAY_NAME) violations.add('name', `must not be longer than ${MAX_DISPLAY_NAME} characters`);
}

function checkMeshService(spec: MeshServiceSpec, displayName: string, violations: ViolationList): void {
  checkDisplayName(displayName, violations);
  const selectors = ['dataplaneTags', 'dataplaneRef', 'dataplaneLabels'] as const;
  if (selectors.filter((selector) => spec.selector?.[selector] !== undefined).length > 1) {
    violations.add('spec.selector', 'must specify only one of: dataplaneTags, dataplaneRef, or dataplaneLabels');
  }
}

function isValidPort(port: number | undefined): boolean {
  return port !== undefined && port >= 1 && port <= 65535;
}

function checkMeshExternalService(spec: MeshExternalServiceSpec, displayName: string, violations: ViolationList): void {
  checkDisplayName(displayName, violations);
  if (!isValidPort(spec.match?.port)) violations.add('spec.match.port', 'port must be a valid (1-65535)');
  // An extension validates its own endpoints and TLS.
  if (spec.extension === undefined) {
    (spec.endpoints ?? []).forEach((endpoint, index) => {
      const path = indexPath('spec.endpoints', index);
      const address = endpoint.address ?? '';
      if (!isGoIp(address) && !isDnsName(address)) violations.add(`${path}.address`, 'address has to be a valid IP or hostname');
      else if (!isValidPort(endpoint.port)) violations.add(`${path}.port`, 'port must be a valid (1-65535)');
    });
  } else if (!spec.extension.type) {
    violations.add('spec.extension.type', 'must not be empty');
  }
}

function checkMeshMultiZoneService(spec: MeshMultiZoneServiceSpec, violations: ViolationList): void {
  if (Object.keys(spec.selector?.meshService?.matchLabels ?? {}).length === 0) {
    violations.add('spec.selector.meshService.matchLabels', 'cannot be empty');
  }
  if ((spec.ports ?? []).length === 0) violations.add('spec.ports', 'cannot be empty');
  (spec.ports ?? []).forEach((port, index) => {
    const path = indexPath('spec.ports', index);
    if (port.name === '') violations.add(`${path}.name`, 'must not be empty');
    if (!PROTOCOLS.includes(port.appProtocol ?? '')) {
      violations.add(`${path}.appProtocol`, `appProtocol must be one of [${PROTOCOLS.join(', ')}]`);
    }
  });
}

function checkHostnameGenerator(spec: HostnameGeneratorSpec, violations: ViolationList): void {
  const selectors = ['meshService', 'meshExternalService', 'meshMultiZoneService'] as const;
  if (selectors.filter((selector) => spec.selector?.[selector] !== undefined).length !== 1) {
    violations.add('spec.selector', 'exact one selector (meshService, meshExternalService) must be defined');
  }
  const problem = templateProblem(spec.template ?? '');
  if (problem !== undefined) violations.add('spec.template', problem);
  if (spec.extension !== undefined && !spec.extension.type) violations.add(fieldPath('spec.extension', 'type'), 'must not be empty');
}

/** Kuma renders the template with stub values; the result must be a DNS name. */
function templateProblem(template: string): string | undefined {
  if (template === '') return 'must not be empty';
  let parsed;
  try {
    parsed = parseTemplate(template);
  } catch (error) {
    return `couldn't parse template: ${(error as Error).message}`;
  }
  let rendered: string;
  try {
    rendered = renderTemplate(parsed, {
      data: { Name: 'name', DisplayName: 'displayname', Namespace: 'namespace', Mesh: 'mesh', Zone: 'zone' },
      label: () => 'label',
    });
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    return `couldn't render template with stub values: ${error.message}`;
  }
  const problems = dns1123SubdomainProblems(rendered);
  return problems.length === 0 ? undefined : `template renders to ${JSON.stringify(rendered)} which is not a valid DNS name: ${problems.join(', ')}`;
}
