import type { Callbacks } from '../server/callbacks.js';
import type { AuthCallbacks } from './auth.js';
import type { DataplaneLifecycle } from './dataplane-lifecycle.js';
import type { NackBackoff } from './nack-backoff.js';
import { adaptProxyCallbacks } from './proxy-callbacks-adapter.js';
import type { StatusTracker } from './status-tracker.js';
import type { ProxyCallbacks } from './proxy-callbacks.js';

export interface ChainLink {
  name: string;
  callbacks: Callbacks;
}

/**
 * THE order of the ADS callbacks (SPEC §5), written once. Requests run top to bottom, stream
 * close bottom to top. The lifecycle runs before the sync tracker: the tracker's first
 * generation needs the Dataplane to be registered, and visible through the caches, already.
 */
export function callbacksChain(parts: {
  auth: AuthCallbacks;
  lifecycle: DataplaneLifecycle;
  syncTracker: ProxyCallbacks;
  statusTracker: StatusTracker;
  nackBackoff: NackBackoff;
}): ChainLink[] {
  return [
    { name: 'auth', callbacks: parts.auth },
    { name: 'dataplane-lifecycle', callbacks: adaptProxyCallbacks(parts.lifecycle) },
    { name: 'dataplane-sync-tracker', callbacks: adaptProxyCallbacks(parts.syncTracker) },
    { name: 'status-tracker', callbacks: parts.statusTracker },
    { name: 'nack-backoff', callbacks: parts.nackBackoff },
  ];
}
