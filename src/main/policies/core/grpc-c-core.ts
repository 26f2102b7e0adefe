import type { ProxyUserAgent } from '../../xds/generate/proxy.js';

/** What gRPC C-core (Python, C++, Ruby…) names itself in `node.user_agent_name`: "gRPC C-core linux", … */
const C_CORE_USER_AGENT_PREFIX = 'gRPC C-core';

/**
 * C-core's `node.user_agent_version`: its core version, then its wrapper's release, e.g.
 * "C-core 29.0.0 Python 1.51.1" from Debian's python3-grpcio. The core version is what every
 * wrapper of one release shares (release 1.51 is core 29, 1.52 is core 30).
 */
const C_CORE_VERSION = /^C-core (\d+)\.\d+\.\d+/;

/** The proxy is a gRPC C-core xDS client: the client behind the workarounds of known C-core bugs. */
export function isGrpcCCore(userAgent: ProxyUserAgent | undefined): userAgent is ProxyUserAgent {
  return userAgent?.name.startsWith(C_CORE_USER_AGENT_PREFIX) ?? false;
}

/** The core major version a C-core client names, or undefined when its version text cannot be read. */
export function cCoreMajorVersion(userAgent: ProxyUserAgent): number | undefined {
  const match = C_CORE_VERSION.exec(userAgent.version);
  return match ? Number(match[1]) : undefined;
}
