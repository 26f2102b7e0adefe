import { fieldPath, indexPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import { MUST_BE_DEFINED, MUST_NOT_BE_EMPTY, isRecord, itemDefaults } from '../core/conf-checks.js';
import type { PolicySpec } from '../core/policy.js';
import type { MeshAccessLogConf } from './api.js';
import { isFilePath, isUrl } from './kuma-validators.js';

/** The `default` confs of every `to`, `from` and `rules` item, in Kuma's order (its validateDefault and below). */
export function validateMeshAccessLog(spec: PolicySpec<MeshAccessLogConf>, violations: ViolationList): void {
  for (const list of ['to', 'from', 'rules'] as const) {
    for (const { index, conf } of itemDefaults(spec[list])) checkConf(conf, fieldPath(indexPath(`spec.${list}`, index), 'default'), violations);
  }
}

function checkConf(conf: unknown, path: string, violations: ViolationList): void {
  const backends = fieldPath(path, 'backends');
  if (!isRecord(conf) || !Array.isArray(conf.backends)) {
    violations.add(backends, MUST_BE_DEFINED);
    return;
  }
  (conf.backends as unknown[]).forEach((backend, index) => checkBackend(backend, indexPath(backends, index), violations));
}

function checkBackend(backend: unknown, path: string, violations: ViolationList): void {
  if (!isRecord(backend)) return;
  switch (backend.type) {
    case 'File': {
      const at = fieldPath(path, 'file');
      if (!isRecord(backend.file)) return violations.add(at, MUST_BE_DEFINED);
      if (backend.file.format !== undefined) checkFormat(backend.file.format, fieldPath(at, 'format'), violations);
      if (!isFilePath(typeof backend.file.path === 'string' ? backend.file.path : '')) violations.add(fieldPath(at, 'path'), 'file backend requires a valid path');
      return;
    }
    case 'Tcp': {
      const at = fieldPath(path, 'tcp');
      if (!isRecord(backend.tcp)) return violations.add(at, MUST_BE_DEFINED);
      if (backend.tcp.format !== undefined) checkFormat(backend.tcp.format, fieldPath(at, 'format'), violations);
      if (!isUrl(typeof backend.tcp.address === 'string' ? backend.tcp.address : '')) violations.add(fieldPath(at, 'address'), 'tcp backend requires valid address');
      return;
    }
    case 'OpenTelemetry': {
      const at = fieldPath(path, 'openTelemetry');
      if (!isRecord(backend.openTelemetry)) return violations.add(at, MUST_BE_DEFINED);
      checkOpenTelemetry(backend.openTelemetry, at, violations);
      return;
    }
    default:
      // Kuma's schema refuses it before its validator (which would panic on it).
      violations.add(fieldPath(path, 'type'), 'must be one of: Tcp, File, OpenTelemetry');
  }
}

/** Kuma's ValidateOtelBackendRefOrEndpoint and ValidateOtelAttributeName. */
function checkOpenTelemetry(otel: Record<string, unknown>, path: string, violations: ViolationList): void {
  const endpoint = typeof otel.endpoint === 'string' ? otel.endpoint : '';
  const { backendRef } = otel;
  if (endpoint !== '' && backendRef !== undefined) violations.add(path, 'openTelemetry must have only one type defined: endpoint, backendRef');
  else if (endpoint === '' && backendRef === undefined) violations.add(path, 'openTelemetry must have exactly one defined: endpoint, backendRef');
  else if (isRecord(backendRef)) {
    const at = fieldPath(path, 'backendRef');
    if (backendRef.kind !== 'MeshOpenTelemetryBackend') violations.add(fieldPath(at, 'kind'), '"kind" must be one of ["MeshOpenTelemetryBackend"]');
    if (!isRecord(backendRef.labels) || Object.keys(backendRef.labels).length === 0) violations.add(at, 'backendRef must have exactly one defined: labels');
  } else if (/[/?#]/.test(endpoint)) violations.add(fieldPath(path, 'endpoint'), 'must be in host:port format, not a URL');
  (Array.isArray(otel.attributes) ? otel.attributes : []).forEach((attribute: unknown, index) => {
    const key = isRecord(attribute) && typeof attribute.key === 'string' ? attribute.key : '';
    const at = fieldPath(indexPath(fieldPath(path, 'attributes'), index), 'key');
    if (key === '') violations.add(at, MUST_BE_DEFINED);
    else if (key.includes('%')) violations.add(at, 'must be a static OpenTelemetry attribute name; placeholders are only supported in values');
    else if (key.startsWith('otel.')) violations.add(at, "must not use the reserved OpenTelemetry prefix 'otel.'");
    else if (!/^[a-z](?:[a-z0-9]|[._][a-z0-9])*$/.test(key)) {
      violations.add(at, "must start with a lowercase letter, use only lowercase letters, digits, '.' or '_', avoid consecutive delimiters, and end with a letter or digit");
    }
  });
}

function checkFormat(format: unknown, path: string, violations: ViolationList): void {
  if (!isRecord(format)) return;
  switch (format.type) {
    case 'Plain': {
      const at = fieldPath(path, 'plain');
      if (format.plain === undefined) violations.add(at, MUST_BE_DEFINED);
      else if (format.plain === '') violations.add(at, MUST_NOT_BE_EMPTY);
      return;
    }
    case 'Json': {
      const at = fieldPath(path, 'json');
      if (!Array.isArray(format.json)) return violations.add(at, MUST_BE_DEFINED);
      if (format.json.length === 0) violations.add(at, MUST_NOT_BE_EMPTY);
      (format.json as unknown[]).forEach((field, index) => {
        const entry = isRecord(field) ? field : {};
        const key = typeof entry.key === 'string' ? entry.key : '';
        const value = typeof entry.value === 'string' ? entry.value : '';
        const fieldAt = indexPath(at, index);
        if (key === '') violations.add(fieldPath(fieldAt, 'key'), 'key cannot be empty');
        if (value === '') violations.add(fieldPath(fieldAt, 'value'), 'value cannot be empty');
        // Kuma pastes both into `{"key": "value"}` unescaped and asks whether that is JSON.
        if (!isJson(`{"${key}": "${value}"}`)) violations.add(fieldAt, 'is not a valid JSON object');
      });
      return;
    }
    default:
      violations.add(fieldPath(path, 'type'), 'must be one of: Plain, Json');
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
