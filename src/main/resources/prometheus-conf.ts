// Kuma's validatePrometheusConfig (pkg/core/resources/apis/mesh/mesh_validator.go): the `conf` of a
// Prometheus metrics backend, on a Mesh or a Dataplane.
import { indexPath } from './field-path.js';
import { PROMETHEUS_CONF } from './kuma-schema.js';
import { readConf } from './backend-conf.js';
import type { ViolationList } from './validation-error.js';

export function checkPrometheusConf(conf: Record<string, unknown> | undefined, path: string, violations: ViolationList): void {
  const config = readConf(PROMETHEUS_CONF, conf, path, violations) as
    | {
        skipMTLS?: boolean;
        tls?: { mode?: string };
        envoy?: { filterRegex?: string };
        aggregate?: { name?: string }[];
      }
    | undefined;
  if (config === undefined) return;
  if (config.skipMTLS !== undefined && config.tls !== undefined && !skipMtlsAgreesWithTls(config.skipMTLS, config.tls.mode)) {
    violations.add(path, 'skipMTLS and tls configuration cannot be defined together');
    return;
  }
  const filterRegex = config.envoy?.filterRegex ?? '';
  try {
    new RegExp(filterRegex, 'u');
  } catch (error) {
    violations.add(`${path}.envoy.filterRegex`, `provided regexp isn't correct: ${(error as Error).message}`);
    return;
  }
  const names = new Set<string>();
  (config.aggregate ?? []).forEach((aggregate, index) => {
    const name = aggregate.name ?? '';
    if (names.has(name)) {
      violations.add(`${indexPath(`${path}.aggregate`, index)}.name`, `duplicate entry: ${name}, values have to be unique`);
    }
    names.add(name);
  });
}

function skipMtlsAgreesWithTls(skipMtls: boolean, mode = 'activeMTLSBackend'): boolean {
  return (!skipMtls && mode === 'activeMTLSBackend') || (skipMtls && mode === 'disabled');
}
