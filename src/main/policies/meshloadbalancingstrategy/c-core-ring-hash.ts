import type { ProxyUserAgent } from '../../xds/generate/proxy.js';

/** What gRPC C-core (Python, C++, Ruby…) names itself in `node.user_agent_name`: "gRPC C-core linux", … */
const C_CORE_USER_AGENT_PREFIX = 'gRPC C-core';

/**
 * C-core's `node.user_agent_version`: its core version, then its wrapper's release, e.g.
 * "C-core 29.0.0 Python 1.51.1" from Debian's python3-grpcio. The core version is what every
 * wrapper of one release shares (release 1.51 is core 29, 1.52 is core 30).
 */
const C_CORE_VERSION = /^C-core (\d+)\.\d+\.\d+/;

/**
 * C-core crashes on its first pick through a RING_HASH cluster up to release 1.51 (core 29):
 * ring_hash's picker casts its connection attempter to the wrong type since grpc/grpc#30714,
 * fixed by grpc/grpc#32012 in 1.52 (issue grpc/grpc#31766, "Crash In RingHash Picker"). Debian's
 * python3-grpcio 1.51.1 dies with SIGSEGV there. The first core version known to be safe:
 */
const FIRST_SAFE_CORE_MAJOR = 30;

/**
 * Why ring hash must not reach this client, or undefined when it may: C-core 1.51 or older, or a
 * C-core whose version we cannot read (it may be one of those).
 */
export function ringHashCrashReason(userAgent: ProxyUserAgent | undefined): string | undefined {
  if (!userAgent?.name.startsWith(C_CORE_USER_AGENT_PREFIX)) return undefined;
  const match = C_CORE_VERSION.exec(userAgent.version);
  if (match && Number(match[1]) >= FIRST_SAFE_CORE_MAJOR) return undefined;
  const which = match ? `gRPC ${userAgent.version}` : `gRPC C-core of unknown version (${JSON.stringify(userAgent.version)})`;
  return `${which} crashes on its first call through a ring hash cluster (fixed in release 1.52, core 30: grpc/grpc#31766): the client keeps round robin`;
}
