import type { Resource } from '../../shared/resources.js';
import type { Settings } from '../config/settings.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { RemoteSnapshotHistory } from '../store/worker/remote-snapshot-history.js';
import type { ChainLink } from '../xds/callbacks/chain.js';
import type { StatusTracker } from '../xds/callbacks/status-tracker.js';
import type { SnapshotCache } from '../xds/server/snapshot-cache.js';
import type { StreamInfo } from '../xds/server/stream.js';
import { asSent, configDump } from '../xds/status/config-dump.js';
import type { ProxyTimeline } from '../xds/status/proxy-timeline.js';
import { ApiError } from './api-error.js';
import { overviewOf } from './dataplane-overview.js';
import type { RequestContext, Route } from './router.js';

/** Where proxies reach the running ADS server. */
export interface AdsAddress {
  host: string;
  port: number;
}

/** The xDS side's read-only views the inspection routes show. */
export interface InspectionDependencies {
  manager: ReadOnlyResourceManager;
  settings: Settings;
  timeline: ProxyTimeline;
  statusTracker: Pick<StatusTracker, 'status' | 'proxies'>;
  snapshots: Pick<SnapshotCache, 'getSnapshot'>;
  snapshotHistory: Pick<RemoteSnapshotHistory, 'list' | 'get'>;
  /** The running ADS server (its live streams). */
  adsServer: { streams(): StreamInfo[] };
  /** The very list the ADS server's callbacks chain is made of, in order, with each link's name. */
  xdsChain: readonly ChainLink[];
  adsAddress: AdsAddress;
}

/**
 * What meshdesk tells about proxies. Kuma's paths where Kuma has one:
 * - `GET /meshes/{mesh}/dataplanes+status`: every Dataplane of the mesh with its proxy's status
 *   (`dataplaneInsight`, meshdesk's ProxyStatus; null for a proxy never seen), which the UI reads;
 *   Kuma's own `dataplanes+insights` and `_overview` are in dataplane-overview.ts;
 * - `GET /meshes/{mesh}/dataplanes/{name}/xds`: the proxy's configuration as Envoy's admin config dump.
 * meshdesk's own, under the Dataplane with a `_` prefix as Kuma's inspection paths (`_rules`) have:
 * - `…/{name}/_status`: ProxyStatus plus the live stream's subscriptions (resource names asked for);
 * - `…/{name}/_timeline`: the proxy's events, oldest first;
 * - `…/{name}/_first-config`: the time-to-first-config breakdown of its latest connection, and of the earlier ones kept;
 * - `…/{name}/_history` and `…/{name}/_history/{id}`: snapshots published to it, newest first, and one of them.
 * And `GET /proxies` (every proxy known, online or not) and `GET /xds/chain` (callbacks in chain
 * order, the xDS settings in force, the ADS address).
 * A departed proxy is answered for until its retention ends (`departure` says until when), across
 * restarts (an earlier run's proxies carry `beforeRestart`); a proxy meshdesk knows nothing about
 * is a 404 naming it.
 */
export function inspectionRoutes(deps: InspectionDependencies): Route[] {
  const proxy = '/meshes/:mesh/dataplanes/:name';
  return [
    { method: 'GET', path: '/proxies', handler: () => listBody(deps.statusTracker.proxies()) },
    {
      method: 'GET',
      path: '/meshes/:mesh/dataplanes+status',
      handler: async ({ params }) => {
        const dataplanes = await deps.manager.list('Dataplane', { mesh: params.mesh! });
        return listBody(dataplanes.map((dataplane) => dataplaneWithStatus(dataplane, deps.statusTracker)));
      },
    },
    {
      method: 'GET',
      path: `${proxy}/xds`,
      handler: (context) => {
        const proxyId = proxyIdOf(context);
        const snapshot = deps.snapshots.getSnapshot(proxyId);
        if (!snapshot) {
          throw notFound(`proxy "${proxyId}" has no configuration: it is not connected, or its Dataplane was not found when generating it`);
        }
        return { json: configDump(snapshot) };
      },
    },
    {
      method: 'GET',
      path: `${proxy}/_status`,
      handler: (context) => {
        const proxyId = proxyIdOf(context);
        const status = deps.statusTracker.status(proxyId);
        if (!status) throw unknownProxy(proxyId);
        const stream = status.online ? deps.adsServer.streams().find((each) => each.id === status.stream.id) : undefined;
        return { json: { ...status, subscriptions: stream?.subscriptions ?? [] } };
      },
    },
    {
      method: 'GET',
      path: `${proxy}/_timeline`,
      handler: (context) => {
        const proxyId = proxyIdOf(context);
        const events = knownEvents(deps, proxyId);
        const departure = deps.statusTracker.status(proxyId)?.departure;
        return { json: { proxyId, events, ...(departure && { departure }) } };
      },
    },
    {
      method: 'GET',
      path: `${proxy}/_first-config`,
      handler: (context) => {
        const proxyId = proxyIdOf(context);
        knownEvents(deps, proxyId);
        const { latest, earlier } = deps.timeline.firstConfigs(proxyId);
        if (!latest) throw notFound(`proxy "${proxyId}" has no connection on its timeline`);
        return { json: { proxyId, ...latest, earlier } };
      },
    },
    {
      method: 'GET',
      path: `${proxy}/_history`,
      handler: async (context) => {
        const proxyId = proxyIdOf(context);
        const snapshots = await deps.snapshotHistory.list(proxyId);
        // History outlives a restart, so a proxy with history is known even if it has not connected since.
        if (snapshots.length === 0 && deps.timeline.events(proxyId).length === 0) throw unknownProxy(proxyId);
        return listBody(snapshots);
      },
    },
    {
      method: 'GET',
      path: `${proxy}/_history/:id`,
      handler: async (context) => {
        const proxyId = proxyIdOf(context);
        const id = Number(context.params.id);
        if (!/^\d+$/.test(context.params.id!) || !Number.isSafeInteger(id)) {
          throw new ApiError(400, 'Bad request', `snapshot id must be a positive integer, got "${context.params.id}"`);
        }
        const snapshot = await deps.snapshotHistory.get(id);
        if (snapshot?.proxyId !== proxyId) {
          throw notFound(`proxy "${proxyId}" has no snapshot ${id} in its history (only its newest snapshots are kept)`);
        }
        return { json: { ...snapshot, resources: asSent(snapshot.resources) } };
      },
    },
    {
      method: 'GET',
      path: '/xds/chain',
      handler: () => ({
        json: {
          callbacks: deps.xdsChain.map((link) => link.name),
          settings: xdsSettings(deps.settings),
          ads: deps.adsAddress,
        },
      }),
    },
  ];
}

/** Node id of the Dataplane in the URL: `mesh.name`. */
function proxyIdOf({ params }: RequestContext): string {
  return `${params.mesh}.${params.name}`;
}

/** Kuma's list envelope. */
function listBody(items: unknown[]) {
  return { json: { total: items.length, items, next: null } };
}

/** A Dataplane with meshdesk's ProxyStatus as its insight (the shape of Kuma's DataplaneOverview, not its insight). */
function dataplaneWithStatus(dataplane: Resource<'Dataplane'>, statusTracker: InspectionDependencies['statusTracker']) {
  const overview = overviewOf(dataplane);
  return { ...overview, dataplaneInsight: statusTracker.status(`${overview.mesh}.${overview.name}`) ?? null };
}

/** The proxy's timeline; a proxy without one never connected (or was forgotten once its retention ended). */
function knownEvents(deps: InspectionDependencies, proxyId: string) {
  const events = deps.timeline.events(proxyId);
  if (events.length === 0) throw unknownProxy(proxyId);
  return events;
}

/** The `xds.*` settings in force, in user form (`"xds.postCreateStrategy": "sleep"`). */
function xdsSettings(settings: Settings): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings.userValues()).filter(([name]) => name.startsWith('xds.')));
}

function notFound(details: string): ApiError {
  return new ApiError(404, 'Could not find a proxy', details);
}

function unknownProxy(proxyId: string): ApiError {
  return notFound(
    `proxy "${proxyId}" is unknown: it never connected to this data directory's meshdesk, or it departed longer ago than xds.departedProxyRetention`,
  );
}
