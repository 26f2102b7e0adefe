// Kuma v2.14.3's Mesh validation: the resource rules (pkg/core/resources/apis/mesh/mesh_validator.go) and
// what the mesh manager checks on create (pkg/core/managers/apis/mesh/mesh_validator.go, builtin CA
// plugin), with Kuma's field paths and messages.
import type { MeshServicesMode } from '../../shared/meshservice-types.js';
import type { MeshSpec } from '../../shared/resources.js';
import { indexPath } from './field-path.js';
import { checkMetricsBackend } from './dataplane-validator.js';
import { readConf } from './backend-conf.js';
import { isDnsName, checkPort, checkTags, isRequestUri } from './kuma-rules.js';
import { isKumaDuration } from './kuma-duration.js';
import { DATADOG_CONF, FILE_LOGGING_CONF, TCP_LOGGING_CONF, ZIPKIN_CONF } from './kuma-schema.js';
import type { ViolationList } from './validation-error.js';

/** The CA plugins a Kuma control plane has installed. */
const CA_TYPES = ['builtin', 'provided'];
const MAX_BUILTIN_BACKEND_NAME = 255;
/** Go's URL.Port() is the port written after the host: `http://zipkin:9411/api/v2/spans`. */
const EXPLICIT_PORT = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*:\d+(?:[/?#]|$)/;

/** Mesh.Validate(). */
export function checkMeshSpec(spec: MeshSpec, violations: ViolationList): void {
  checkMtls(spec.mtls, violations);
  checkLogging(spec.logging, violations);
  checkTracing(spec.tracing, violations);
  checkMetrics(spec.metrics, violations);
  checkConstraints(spec.constraints, violations);
  if (spec.routing?.zoneEgress && !spec.mtls?.enabledBackend) {
    violations.add('mtls', 'has to be set when zoneEgress enabled');
  }
}

/** Kuma's MeshServicesMode(): `Disabled` unless the mesh says otherwise (mesh_helpers.go). */
export function meshServicesMode(spec: MeshSpec): MeshServicesMode {
  return spec.meshServices?.mode ?? 'Disabled';
}

/**
 * The spec as Kuma's protobuf JSON prints it back: `meshServices.mode: Disabled` is the enum's zero
 * value, which protojson leaves out (`meshServices: {}` stays, a set message).
 */
export function withoutDefaultMeshServicesMode(spec: MeshSpec): MeshSpec {
  if (spec.meshServices?.mode !== 'Disabled') return spec;
  const { mode: _default, ...meshServices } = spec.meshServices;
  return { ...spec, meshServices };
}

/** What the mesh manager checks on create and update, after the resource's own rules and its meta. */
export function checkMeshCreation(name: string, spec: MeshSpec, violations: ViolationList): void {
  if (name.length > 63) violations.add('name', 'cannot be longer than 63 characters');
  checkCaBackends(name, spec.mtls, violations);
}

function checkMtls(mtls: MeshSpec['mtls'], violations: ViolationList): void {
  if (mtls === undefined) return;
  const backends = mtls.backends ?? [];
  if (backends.length > 1) violations.add('mtls.backends', 'cannot have more than 1 backends');
  const names = new Set<string>();
  backends.forEach((backend, index) => {
    const backendName = backend.name ?? '';
    if (names.has(backendName)) {
      violations.add(`${indexPath('mtls.backends', index)}.name`, `"${backendName}" name is already used for another backend`);
    }
    names.add(backendName);
    if (backend.dpCert !== undefined && !isKumaDuration(backend.dpCert.rotation?.expiration ?? '')) {
      // Kuma's path, spelled as Kuma spells it.
      violations.add('mtls.dpcert.rotation.expiration', 'has to be a valid format');
    }
  });
  if (mtls.enabledBackend && !names.has(mtls.enabledBackend)) {
    violations.add('mtls.enabledBackend', 'has to be set to one of the backends in the mesh');
  }
}

/** What the mesh manager asks the CA plugin of each backend (ValidateMTLSBackends). */
function checkCaBackends(meshName: string, mtls: MeshSpec['mtls'], violations: ViolationList): void {
  for (const [index, backend] of (mtls?.backends ?? []).entries()) {
    const path = indexPath('mtls.backends', index);
    if (!CA_TYPES.includes(backend.type ?? '')) {
      violations.add(`${path}.type`, 'could not find installed plugin for this type');
      return;
    }
    if (mtls?.skipValidation || backend.type !== 'builtin') continue;
    // The builtin CA stores its certificate in a Secret named after the mesh and the backend.
    const secretName = `${meshName}.ca-builtin-cert-${backend.name ?? ''}`;
    if (secretName.length > MAX_BUILTIN_BACKEND_NAME) {
      violations.add('mtls.backends.name', `Backend name is too long. Max length: ${MAX_BUILTIN_BACKEND_NAME}`);
    }
    if (!isDnsName(secretName) || secretName !== secretName.toLowerCase()) {
      violations.add('mtls.backends.name', `"${backend.name ?? ''}" name must be valid dns name`);
    }
  }
}

type Backends<T> = { backends?: T[] };

/** Logging and tracing backends: each one checked, names unique, the default one of them. */
function checkNamedBackends<T extends { name?: string }>(
  section: (Backends<T> & { defaultBackend?: string }) | undefined,
  path: string,
  checkBackend: (backend: T, backendPath: string) => void,
  defaultMessage: string,
  violations: ViolationList,
): void {
  if (section === undefined) return;
  const names = new Set<string>();
  (section.backends ?? []).forEach((backend, index) => {
    const backendPath = indexPath(`${path}.backends`, index);
    checkBackend(backend, backendPath);
    const backendName = backend.name ?? '';
    if (names.has(backendName)) violations.add(`${backendPath}.name`, `"${backendName}" name is already used for another backend`);
    names.add(backendName);
  });
  if (section.defaultBackend && !names.has(section.defaultBackend)) {
    violations.add(`${path}.defaultBackend`, defaultMessage);
  }
}

function checkLogging(logging: MeshSpec['logging'], violations: ViolationList): void {
  checkNamedBackends(
    logging,
    'logging',
    (backend, path) => {
      if (!backend.name) violations.add(`${path}.name`, 'cannot be empty');
      if (backend.type === 'file') {
        const conf = readConf(FILE_LOGGING_CONF, backend.conf, `${path}.config`, violations);
        if (conf && !conf.path) violations.add(`${path}.config.path`, 'cannot be empty');
      } else if (backend.type === 'tcp') {
        const conf = readConf(TCP_LOGGING_CONF, backend.conf, `${path}.config`, violations);
        if (conf === undefined) return;
        const address = typeof conf.address === 'string' ? conf.address : '';
        if (address === '') violations.add(`${path}.config.address`, 'cannot be empty');
        else if (!isHostPort(address)) violations.add(`${path}.config.address`, 'has to be in format of HOST:PORT');
      } else {
        violations.add(`${path}.type`, 'unknown backend type. Available backends: "tcp", "file"');
      }
    },
    'has to be set to one of the logging backend in mesh',
    violations,
  );
}

function checkTracing(tracing: MeshSpec['tracing'], violations: ViolationList): void {
  checkNamedBackends(
    tracing,
    'tracing',
    (backend, path) => {
      if (!backend.name) violations.add(`${path}.name`, 'cannot be empty');
      const sampling = backend.sampling ?? 0;
      if (sampling < 0 || sampling > 100) violations.add(`${path}.sampling`, 'has to be in [0.0 - 100.0] range');
      if (backend.type === 'zipkin') checkZipkin(backend.conf, `${path}.config`, violations);
      else if (backend.type === 'datadog') checkDatadog(backend.conf, `${path}.config`, violations);
      else violations.add(`${path}.type`, 'unknown backend type. Available backends: "zipkin", "datadog"');
    },
    'has to be set to one of the tracing backend in mesh',
    violations,
  );
}

function checkZipkin(conf: Record<string, unknown> | undefined, path: string, violations: ViolationList): void {
  const config = readConf(ZIPKIN_CONF, conf, path, violations) as { url?: string; apiVersion?: string } | undefined;
  if (config === undefined) return;
  const apiVersion = config.apiVersion ?? '';
  if (apiVersion !== '' && !['httpJsonV1', 'httpJson', 'httpProto'].includes(apiVersion)) {
    violations.add(`${path}.apiVersion`, 'has invalid value. Allowed values: httpJsonV1, httpJson, httpProto');
  }
  const url = config.url ?? '';
  if (url === '') {
    violations.add(`${path}.url`, 'cannot be empty');
    return;
  }
  if (!isRequestUri(url)) violations.add(`${path}.url`, 'invalid URL');
  else if (!EXPLICIT_PORT.test(url)) violations.add(`${path}.url`, 'port has to be explicitly specified');
}

function checkDatadog(conf: Record<string, unknown> | undefined, path: string, violations: ViolationList): void {
  const config = readConf(DATADOG_CONF, conf, path, violations) as { address?: string; port?: number } | undefined;
  if (config === undefined) return;
  if (!config.address) violations.add(`${path}.address`, 'cannot be empty');
  checkPort(config.port, `${path}.port`, violations);
}

function checkMetrics(metrics: MeshSpec['metrics'], violations: ViolationList): void {
  if (metrics === undefined) return;
  const names = new Set<string>();
  (metrics.backends ?? []).forEach((backend, index) => {
    const path = indexPath('metrics.backends', index);
    const backendName = backend.name ?? '';
    if (names.has(backendName)) violations.add(`${path}.name`, `"${backendName}" name is already used for another backend`);
    checkMetricsBackend(backend, path, violations);
    names.add(backendName);
  });
  if (metrics.enabledBackend && !names.has(metrics.enabledBackend)) {
    violations.add('metrics.enabledBackend', 'has to be set to one of the backends in the mesh');
  }
}

function checkConstraints(constraints: MeshSpec['constraints'], violations: ViolationList): void {
  const proxy = constraints?.dataplaneProxy;
  for (const [rules, name] of [
    [proxy?.requirements, 'requirements'],
    [proxy?.restrictions, 'restrictions'],
  ] as const) {
    (rules ?? []).forEach((rule, index) =>
      checkTags(rule.tags, `constraints.dataplaneProxy.${indexPath(name, index)}.tags`, violations, {
        requireAtLeastOne: true,
        selector: true,
      }),
    );
  }
}

/** Go's net.SplitHostPort, with both parts non-empty. */
function isHostPort(address: string): boolean {
  const bracketed = /^\[([^\]]*)\]:([^:]*)$/.exec(address);
  if (bracketed) return bracketed[1] !== '' && bracketed[2] !== '';
  const colon = address.lastIndexOf(':');
  if (colon === -1) return false;
  const host = address.slice(0, colon);
  return host !== '' && !host.includes(':') && address.slice(colon + 1) !== '';
}
