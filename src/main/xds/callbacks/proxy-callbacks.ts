import type { ResourceKey } from '../../../shared/resources.js';
import type { Node } from '../protocol/ads-service.js';
import type { ProxyKind } from '../../../shared/proxy-kind.js';
import type { ProxyUserAgent } from '../generate/proxy.js';

/** A proxy connected on one ADS stream, as the proxy-level callbacks see it. */
export interface ConnectedProxy {
  streamId: number;
  /** When the stream opened, on the timeline's clock (`now()`): the start of time to first config. */
  streamOpenedAt: number;
  /** Node id, `mesh.name`. */
  proxyId: string;
  /** The Dataplane this proxy is (type Dataplane, mesh and name from the node id). */
  dataplaneKey: ResourceKey;
  kind: ProxyKind;
  /** What the node's metadata says the proxy supports (kuma-dp's `features`). */
  features: ReadonlySet<string>;
  /** kuma-dp's work directory (node metadata `workdir`); undefined without kuma-dp. */
  workDir?: string;
  /** The client implementation and version the node names (`user_agent_name`/`user_agent_version`). */
  userAgent?: ProxyUserAgent;
  /** The node of the stream's first request; its metadata as plain JSON. */
  node: Node;
  /** Aborts when the stream closes: a wait on its behalf ends then (see StreamRequestEvent.signal). */
  closed: AbortSignal;
}

/**
 * Kuma's DataplaneCallbacks: the two moments a proxy-level concern cares about. The stream-level
 * adapter (ProxyCallbacksAdapter) parses node ids once and calls these on a stream's first
 * request and on its close, so lifecycle and sync tracker never see xDS requests.
 * `onProxyConnected` may be async; the stream waits for it (that is how the post-create wait
 * delays the sync tracker's first generation). A thrown StreamError closes the stream with its status.
 */
export interface ProxyCallbacks {
  onProxyConnected(proxy: ConnectedProxy): void | Promise<void>;
  onProxyDisconnected(proxy: ConnectedProxy): void;
}
