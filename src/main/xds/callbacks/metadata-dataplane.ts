import { status } from '@grpc/grpc-js';
import type { ResourceInput, Violation } from '../../../shared/resources.js';
import { parseResourceText } from '../../resources/parse.js';
import { validateResource } from '../../resources/validate.js';
import { ValidationError } from '../../resources/validation-error.js';
import { DATAPLANE_METADATA_KEY } from '../generate/bootstrap.js';
import { StreamError } from '../server/callbacks.js';
import type { ConnectedProxy } from './proxy-callbacks.js';

/**
 * The Dataplane text a proxy may bring. A Dataplane with a thousand outbounds is about 100 KB;
 * the text is parsed on the event loop every ADS stream shares, once per connect, and a
 * crash-looping proxy connects again and again.
 */
export const MAX_METADATA_DATAPLANE_BYTES = 256 * 1024;

/**
 * The Dataplane a proxy brings in its node metadata (the universal flow), validated; undefined
 * when it brings none (its Dataplane is created via the API). Its mesh and name must be the
 * node id's. Anything wrong closes the stream with INVALID_ARGUMENT naming the proxy and every
 * violation, before anything is written.
 */
export function dataplaneFromMetadata(proxy: ConnectedProxy): ResourceInput<'Dataplane'> | undefined {
  const text = proxy.node.metadata?.[DATAPLANE_METADATA_KEY];
  if (text === undefined) return undefined;
  if (typeof text !== 'string') {
    throw invalidDataplane(proxy, [{ field: '', message: 'must be a string holding the Dataplane as JSON or YAML' }]);
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_METADATA_DATAPLANE_BYTES) {
    throw invalidDataplane(proxy, [
      { field: '', message: `is ${bytes} bytes; the limit is ${MAX_METADATA_DATAPLANE_BYTES} bytes, far more than any Dataplane needs` },
    ]);
  }
  const violations: Violation[] = [];
  const collect = <T>(read: () => T): T | undefined => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      violations.push(...error.violations);
      return undefined;
    }
  };
  const parsed = collect(() => parseResourceText(text));
  if (violations.length > 0) throw invalidDataplane(proxy, violations);
  const input = collect(() => validateResource(parsed));
  violations.push(...identityViolations(parsed, proxy));
  if (violations.length > 0) throw invalidDataplane(proxy, violations);
  return input as ResourceInput<'Dataplane'>;
}

/** The resource must be this proxy's own Dataplane, as it is: no other type, mesh or name, no version. */
function identityViolations(parsed: unknown, proxy: ConnectedProxy): Violation[] {
  if (typeof parsed !== 'object' || parsed === null) return []; // "must be an object" is already reported
  const { type, mesh, name, version } = parsed as Record<string, unknown>;
  const { mesh: nodeMesh, name: nodeName } = proxy.dataplaneKey;
  const violations: Violation[] = [];
  if (typeof type === 'string' && type !== 'Dataplane') {
    violations.push({ field: 'type', message: `must be "Dataplane", got "${type}"` });
  }
  if (typeof mesh === 'string' && mesh !== nodeMesh) {
    violations.push({ field: 'mesh', message: `"${mesh}" does not match node id "${proxy.proxyId}": must be "${nodeMesh}"` });
  }
  if (typeof name === 'string' && name !== nodeName) {
    violations.push({ field: 'name', message: `"${name}" does not match node id "${proxy.proxyId}": must be "${nodeName}"` });
  }
  // A version baked into a bootstrap would ask for a stored version long gone by the next restart.
  if (version !== undefined && version !== null) {
    violations.push({ field: 'version', message: 'must not be set: a proxy registers its Dataplane as it is, whatever the stored version' });
  }
  return violations;
}

function invalidDataplane(proxy: ConnectedProxy, violations: readonly Violation[]): StreamError {
  const error = new ValidationError(
    `proxy "${proxy.proxyId}" sent an invalid Dataplane in node metadata "${DATAPLANE_METADATA_KEY}"`,
    violations,
  );
  return new StreamError(status.INVALID_ARGUMENT, error.message, { cause: error });
}
