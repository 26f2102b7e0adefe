import type { StoredProxy } from '../../store/proxy-records.js';
import type { StatusTracker } from '../callbacks/status-tracker.js';
import type { DepartedProxies } from './departed-proxies.js';
import type { ProxyTimeline } from './proxy-timeline.js';

export interface PreviousRunTargets {
  timeline: Pick<ProxyTimeline, 'restore'>;
  statusTracker: Pick<StatusTracker, 'restore'>;
  departures: Pick<DepartedProxies, 'restore'>;
}

/**
 * Puts back what earlier runs stored about proxies, at start before any stream opens, without
 * writing anything: timelines and first configs as connections from before the restart at
 * `restartedAt`, statuses as they stood (offline, or refused with its reason), and departures with
 * the time they departed, so their retention counts from then. A proxy that had not departed and
 * that no Dataplane answers to now (`dataplaneIds`) departs as of the last thing known of it, the
 * same time at every restart, so restarting never lengthens a retention.
 */
export function restorePreviousRun(stored: readonly StoredProxy[], dataplaneIds: ReadonlySet<string>, restartedAt: number, targets: PreviousRunTargets): void {
  const departures: { proxyId: string; at: number }[] = [];
  for (const proxy of stored) {
    targets.timeline.restore(proxy.proxyId, proxy.connections, restartedAt);
    const hasDataplane = dataplaneIds.has(proxy.proxyId);
    if (proxy.departedAt !== undefined) departures.push({ proxyId: proxy.proxyId, at: proxy.departedAt });
    else if (!hasDataplane) departures.push({ proxyId: proxy.proxyId, at: lastKnown(proxy) ?? restartedAt });
  }
  const statuses = stored.flatMap((proxy) => (proxy.status ? [{ status: proxy.status, hasDataplane: dataplaneIds.has(proxy.proxyId) }] : []));
  targets.statusTracker.restore(statuses, restartedAt);
  targets.departures.restore(departures.sort((a, b) => a.at - b.at));
}

/** The latest time stored about the proxy: its status's, or its last event's. */
function lastKnown(proxy: StoredProxy): number | undefined {
  const times = [proxy.status?.since, ...proxy.connections.flatMap((connection) => connection.events.map((event) => event.at))];
  const known = times.filter((at): at is number => at !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
}
