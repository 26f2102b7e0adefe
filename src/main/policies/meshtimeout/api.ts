import type { MeshTimeoutConf } from '../../xds/generate/defaults/mesh-timeout-defaults.js';
import { MESH_TIMEOUT_DEFAULTS } from '../../xds/generate/defaults/mesh-timeout-defaults.js';
import { goDurationToProtoJson } from '../../resources/go-duration.js';

/**
 * A MeshTimeout `default` as written in a policy (Kuma's api/v1alpha1 Conf): durations in Go's
 * syntax ("10s", "1h"), every field optional; an unset field takes Kuma's default.
 */
export interface MeshTimeoutPolicyConf {
  connectionTimeout?: string;
  idleTimeout?: string;
  http?: {
    requestTimeout?: string;
    streamIdleTimeout?: string;
    maxStreamDuration?: string;
    maxConnectionDuration?: string;
    requestHeadersTimeout?: string;
  };
}

/** The conf over Kuma's defaults, in proto3 JSON durations: what the default writers take. */
export function resolveMeshTimeoutConf(conf: MeshTimeoutPolicyConf): MeshTimeoutConf {
  // Validated durations: the fallback only stands in for an absent value.
  const or = (value: string | undefined, fallback: string) => (value === undefined ? fallback : (goDurationToProtoJson(value) ?? fallback));
  const defaults = MESH_TIMEOUT_DEFAULTS;
  const http = conf.http ?? {};
  return {
    connectionTimeout: or(conf.connectionTimeout, defaults.connectionTimeout),
    idleTimeout: or(conf.idleTimeout, defaults.idleTimeout),
    http: {
      requestTimeout: or(http.requestTimeout, defaults.http.requestTimeout),
      streamIdleTimeout: or(http.streamIdleTimeout, defaults.http.streamIdleTimeout),
      maxStreamDuration: or(http.maxStreamDuration, defaults.http.maxStreamDuration),
      maxConnectionDuration: or(http.maxConnectionDuration, defaults.http.maxConnectionDuration),
      requestHeadersTimeout: or(http.requestHeadersTimeout, defaults.http.requestHeadersTimeout),
    },
  };
}

/** The conf fields a rule sets, as paths (`http.requestTimeout`). */
export function setFields(conf: MeshTimeoutPolicyConf): string[] {
  const top = (['connectionTimeout', 'idleTimeout'] as const).filter((field) => conf[field] !== undefined);
  const http = Object.entries(conf.http ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([field]) => `http.${field}`);
  return [...top, ...http];
}
