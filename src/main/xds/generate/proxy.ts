import type { ProxyKind } from '../../../shared/proxy-kind.js';
import type { DataplaneResource } from '../../../shared/resources.js';
import type { ProxyIdentity } from '../../mtls/proxy-identities.js';

/**
 * Which xDS client a proxy is. Envoy gets Kuma's listeners on real ports; gRPC's own xDS client
 * ("proxyless") only understands API listeners named after the target it dials (`xds:///web`),
 * so the two need different profiles.
 */

/** The proxy configuration is generated for. */
export interface Proxy {
  /** Node id, `mesh.name`. */
  id: string;
  dataplane: DataplaneResource;
  kind: ProxyKind;
  /** What the proxy says it supports (kuma-dp's `features`, e.g. FEATURE_REUSE_PORT); none when absent. */
  features?: ReadonlySet<string>;
  /** Its mTLS identity, issued before generation when its mesh has mTLS on (the one input a generator cannot compute). */
  identity?: ProxyIdentity;
  /**
   * kuma-dp's work directory (node metadata `workdir`), where it serves the socket a MeshAccessLog
   * `Tcp` backend logs through; absent for a proxy without kuma-dp.
   */
  workDir?: string;
  /** Which xDS client implementation and version the node says it is; absent when it says nothing usable. */
  userAgent?: ProxyUserAgent;
}

/** `node.user_agent_name` and `node.user_agent_version`: "gRPC C-core linux" and "1.51.1", "envoy" and "", … */
export interface ProxyUserAgent {
  name: string;
  version: string;
}

/** Longer than any real client's name or version ("gRPC C-core linux", "1.51.1"); kept per connected proxy, so bounded. */
const USER_AGENT_TEXT_LIMIT = 128;

/**
 * The client implementation a node names: strings only, each cut to a bounded length (a proxy
 * chooses them and meshdesk keeps them while it is connected); none without a name.
 */
export function proxyUserAgentFromNode(node: { user_agent_name?: unknown; user_agent_version?: unknown }): ProxyUserAgent | undefined {
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, USER_AGENT_TEXT_LIMIT) : '');
  const name = text(node.user_agent_name);
  return name === '' ? undefined : { name, version: text(node.user_agent_version) };
}

/** Node metadata key where Kuma's bootstrap puts kuma-dp's work directory (Kuma's FieldWorkdir). */
export const WORKDIR_METADATA_KEY = 'workdir';

/** kuma-dp's work directory from a node's metadata; anything but a non-empty string is none. */
export function proxyWorkDirFromNode(node: { metadata?: Record<string, unknown> }): string | undefined {
  const workDir = node.metadata?.[WORKDIR_METADATA_KEY];
  return typeof workDir === 'string' && workDir !== '' ? workDir : undefined;
}

/** Node metadata key where kuma-dp lists the features it supports (Kuma's FieldFeatures). */
export const FEATURES_METADATA_KEY = 'features';

/** kuma-dp can have its inbound listeners share their port (SO_REUSEPORT); it says so by default. */
export const FEATURE_REUSE_PORT = 'feature-reuse-port';

/**
 * The features a node's metadata lists. As in Kuma, anything but a list of strings counts for
 * nothing: a plain Envoy sends no such list, and features only ever switch optional behaviour on.
 */
export function proxyFeaturesFromNode(node: { metadata?: Record<string, unknown> }): ReadonlySet<string> {
  const listed = node.metadata?.[FEATURES_METADATA_KEY];
  return new Set(Array.isArray(listed) ? listed.filter((feature): feature is string => typeof feature === 'string') : []);
}

/** Node metadata key a proxy may set to choose its kind explicitly (`envoy` or `grpc`). */
export const PROXY_TYPE_METADATA_KEY = 'meshdesk.proxyType';

/**
 * gRPC's xDS clients all name themselves "gRPC …" in `node.user_agent_name`: grpc-js-xds sends
 * "gRPC Node Pure JS" (node_modules/@grpc/grpc-js-xds/build/src/xds-client.js, `userAgentName`),
 * C-core (Python, C++, Ruby…) "gRPC C-core <platform>", and Java and Go "gRPC Java" / "gRPC Go".
 * Envoy sends "envoy".
 */
const GRPC_USER_AGENT_PREFIX = 'gRPC';

/**
 * Decides the kind from the node of a stream's first request. An explicit metadata value wins,
 * so that a client with an unusual user agent can still be served; otherwise the user agent
 * tells gRPC clients apart, and anything else is treated as Envoy, the common case.
 * `metadata` is the node's Struct as plain JSON.
 */
export function proxyKindFromNode(node: { user_agent_name?: string; metadata?: Record<string, unknown> }): ProxyKind {
  const explicit = node.metadata?.[PROXY_TYPE_METADATA_KEY];
  if (explicit !== undefined) {
    if (explicit === 'envoy' || explicit === 'grpc') return explicit;
    throw new Error(
      `node metadata "${PROXY_TYPE_METADATA_KEY}" must be "envoy" or "grpc", got ${JSON.stringify(explicit)}`,
    );
  }
  return node.user_agent_name?.startsWith(GRPC_USER_AGENT_PREFIX) ? 'grpc' : 'envoy';
}
