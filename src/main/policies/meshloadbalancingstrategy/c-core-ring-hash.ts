import type { ProxyUserAgent } from '../../xds/generate/proxy.js';
import { cCoreMajorVersion, isGrpcCCore } from '../core/grpc-c-core.js';

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
  if (!isGrpcCCore(userAgent)) return undefined;
  const major = cCoreMajorVersion(userAgent);
  if (major !== undefined && major >= FIRST_SAFE_CORE_MAJOR) return undefined;
  const which = major !== undefined ? `gRPC ${userAgent.version}` : `gRPC C-core of unknown version (${JSON.stringify(userAgent.version)})`;
  return `${which} crashes on its first call through a ring hash cluster (fixed in release 1.52, core 30: grpc/grpc#31766): the client keeps round robin`;
}
