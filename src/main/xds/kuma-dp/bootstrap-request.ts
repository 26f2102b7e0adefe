import type { DataplaneResource, ResourceInput } from '../../../shared/resources.js';
import { parseResourceText } from '../../resources/parse.js';
import { validateResource } from '../../resources/validate.js';
import { ValidationError } from '../../resources/validation-error.js';
import { unstoredDataplane } from '../generate/bootstrap.js';

/** kuma-dp's feature flag asking for incremental (delta) ADS. */
export const FEATURE_DELTA_GRPC = 'feature-delta-grpc';

/**
 * What meshdesk reads of kuma-dp's `POST /bootstrap` body (Kuma's BootstrapRequest; the other
 * fields, such as versions, DNS and metrics sockets, are for features meshdesk does not run).
 */
export interface KumaDpBootstrapRequest {
  mesh: string;
  name: string;
  /** Kuma's proxy types: `dataplane` (the default), `ingress`, `egress`. */
  proxyType: string;
  /** '' when kuma-dp was given no token. */
  dataplaneToken: string;
  /** The Dataplane kuma-dp read from `--dataplane-file` (the universal flow), validated; undefined when it sent none. */
  dataplane: DataplaneResource | undefined;
  /** The CA kuma-dp verifies the control plane with (`--ca-cert-file`); '' when none. */
  caCert: string;
  features: string[];
  /** kuma-dp's work directory (`--workdir`), where it serves its sockets (the access log one); '' when none. */
  workdir: string;
}

/** The body is not JSON at all: Kuma answers 400 with no body. */
export class MalformedBootstrapRequest extends Error {
  override readonly name = 'MalformedBootstrapRequest';
}

/**
 * Reads kuma-dp's request. Unknown fields are ignored (kuma-dp of any version sends more than this
 * reads); a field of the wrong type, an unsupported proxy type or an invalid Dataplane is a
 * ValidationError naming each field, which Kuma answers 422.
 */
export function parseBootstrapRequest(body: string): KumaDpBootstrapRequest {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new MalformedBootstrapRequest(`the bootstrap request is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new MalformedBootstrapRequest('the bootstrap request must be a JSON object');
  const fields = json as Record<string, unknown>;
  const violations: { field: string; message: string }[] = [];
  const text = (field: string): string => {
    const value = fields[field] ?? '';
    if (typeof value === 'string') return value;
    violations.push({ field, message: 'must be a string' });
    return '';
  };
  const request = {
    mesh: text('mesh'),
    name: text('name'),
    proxyType: text('proxyType') || 'dataplane',
    dataplaneToken: text('dataplaneToken').trim(),
    caCert: text('caCert'),
    workdir: text('workdir'),
    features: stringList(fields.features, violations),
  };
  const resourceText = text('dataplaneResource');
  if (request.proxyType !== 'dataplane') {
    violations.push({ field: 'proxyType', message: `"${request.proxyType}" is not supported: meshdesk runs Dataplanes only (not zone ingress or egress)` });
  }
  const dataplane = resourceText === '' ? undefined : requestDataplane(resourceText, violations);
  if (dataplane) {
    // kuma-dp fills mesh and name from the file; a request naming another Dataplane is confused.
    if (request.mesh !== '' && request.mesh !== dataplane.meta.mesh) violations.push({ field: 'mesh', message: `"${request.mesh}" does not match dataplaneResource's mesh "${dataplane.meta.mesh}"` });
    if (request.name !== '' && request.name !== dataplane.meta.name) violations.push({ field: 'name', message: `"${request.name}" does not match dataplaneResource's name "${dataplane.meta.name}"` });
  } else if (request.name === '') {
    violations.push({ field: 'name', message: 'must not be empty' });
  }
  if (violations.length > 0) throw new ValidationError('invalid bootstrap request', violations);
  return {
    ...request,
    mesh: dataplane?.meta.mesh ?? (request.mesh || 'default'),
    name: dataplane?.meta.name ?? request.name,
    dataplane,
  };
}

function stringList(value: unknown, violations: { field: string; message: string }[]): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  violations.push({ field: 'features', message: 'must be a list of strings' });
  return [];
}

/** kuma-dp's Dataplane, validated as the API validates it; violations are reported under `dataplaneResource`. */
function requestDataplane(text: string, violations: { field: string; message: string }[]): DataplaneResource | undefined {
  try {
    const parsed = parseResourceText(text);
    const version = (parsed as { version?: unknown } | null)?.version;
    if (version !== undefined && version !== null) {
      violations.push({ field: 'dataplaneResource.version', message: 'must not be set: a proxy registers its Dataplane as it is, whatever the stored version' });
    }
    return unstoredDataplane(validateResource(parsed, { type: 'Dataplane' }) as ResourceInput<'Dataplane'>);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    violations.push(...error.violations.map(({ field, message }) => ({ field: field === '' ? 'dataplaneResource' : `dataplaneResource.${field}`, message })));
    return undefined;
  }
}
