import type { ProxyEvent } from './proxy-events.js';
import type { ResourceKey } from './resources.js';

/** Everything the core announces to its views (UI, SSE, IPC). Tagged by `topic`. */
export type CoreEvent =
  | { topic: 'resource.changed'; change: 'created' | 'updated' | 'deleted'; key: ResourceKey; version: number }
  | { topic: 'settings.changed'; changed: Record<string, unknown> }
  | { topic: 'proxy.event'; proxyId: string; event: ProxyEvent };

export type CoreTopic = CoreEvent['topic'];
export type EventOf<T extends CoreTopic> = Extract<CoreEvent, { topic: T }>;
