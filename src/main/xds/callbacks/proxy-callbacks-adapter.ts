import { status } from '@grpc/grpc-js';
import { proxyFeaturesFromNode, proxyKindFromNode, proxyUserAgentFromNode, proxyWorkDirFromNode } from '../generate/proxy.js';
import { clipClientText } from '../protocol/client-text.js';
import type { Node } from '../protocol/ads-service.js';
import {
  StreamError,
  type Callbacks,
  type StreamClosedEvent,
  type StreamOpenEvent,
  type StreamRequestEvent,
} from '../server/callbacks.js';
import { now } from '../status/proxy-timeline.js';
import type { ConnectedProxy, ProxyCallbacks } from './proxy-callbacks.js';
import { parseProxyId } from './proxy-id.js';

/**
 * Stream-level hooks → proxy-level hooks (Kuma's DataplaneCallbacksToXdsCallbacks), for one
 * ProxyCallbacks. On a stream's first request it reads the node once (id → Dataplane key, kind)
 * and awaits `onProxyConnected`; on the stream's close it calls `onProxyDisconnected`, only if the
 * connect succeeded. It alone maps streams to proxies: the callbacks it wraps never see a stream.
 *
 * One adapter per ProxyCallbacks, so each keeps its own place in the chain
 * (`[auth, adapt(lifecycle), adapt(syncTracker), …]`) and is told of a disconnect only when it
 * was itself connected: if the lifecycle refuses a proxy, the sync tracker never hears of it.
 */
export class ProxyCallbacksAdapter implements Callbacks {
  readonly #callbacks: ProxyCallbacks;
  /** Open time per stream, until its first request makes it a proxy. */
  readonly #openedAt = new Map<number, number>();
  readonly #proxies = new Map<number, ConnectedProxy>();

  constructor(callbacks: ProxyCallbacks) {
    this.#callbacks = callbacks;
  }

  onStreamOpen({ streamId }: StreamOpenEvent): void {
    this.#openedAt.set(streamId, now());
  }

  async onStreamRequest({ streamId, node, signal }: StreamRequestEvent): Promise<void> {
    if (this.#proxies.has(streamId)) return;
    const proxy = connectedProxy(streamId, this.#openedAt.get(streamId) ?? now(), node, signal);
    await this.#callbacks.onProxyConnected(proxy);
    this.#openedAt.delete(streamId);
    this.#proxies.set(streamId, proxy);
  }

  onStreamClosed({ streamId }: StreamClosedEvent): void {
    this.#openedAt.delete(streamId);
    const proxy = this.#proxies.get(streamId);
    if (!proxy) return;
    this.#proxies.delete(streamId);
    this.#callbacks.onProxyDisconnected(proxy);
  }
}

/** The chain's spelling: `adaptProxyCallbacks(lifecycle)` is a stream-level callback. */
export function adaptProxyCallbacks(callbacks: ProxyCallbacks): Callbacks {
  return new ProxyCallbacksAdapter(callbacks);
}

/** Refuses, with INVALID_ARGUMENT naming the node id and the problem, a node that names no proxy. */
function connectedProxy(streamId: number, streamOpenedAt: number, node: Node, closed: AbortSignal): ConnectedProxy {
  try {
    return {
      streamId,
      streamOpenedAt,
      proxyId: node.id,
      dataplaneKey: { type: 'Dataplane', ...parseProxyId(node.id) },
      kind: proxyKindFromNode(node),
      features: proxyFeaturesFromNode(node),
      workDir: proxyWorkDirFromNode(node),
      userAgent: proxyUserAgentFromNode(node),
      node,
      closed,
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StreamError(status.INVALID_ARGUMENT, `proxy "${clipClientText(node.id, 64)}" cannot connect: ${reason}`, { cause: error });
  }
}
