// Kuma's DataplaneOverview (pkg/core/resources/apis/mesh/dataplane_overview*.go, api/mesh/v1alpha1/
// dataplane_insight.proto) built from meshdesk's status tracker: what `kumactl inspect dataplanes` reads.
import type {
  KumaDataplaneOverview,
  KumaDiscoveryServiceStats,
  KumaDiscoverySubscription,
  ProxyStatus,
  TypeStatus,
} from '../../shared/api-types.js';
import type { Resource } from '../../shared/resources.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { StatusTracker } from '../xds/callbacks/status-tracker.js';
import { titled } from './api-error.js';
import { CONTROL_PLANE_INSTANCE_ID } from './control-plane-identity.js';
import { LIST_ERROR_TITLE, pageOf, readListQuery } from './list-query.js';
import { kriOf } from '../resources/kri.js';
import type { RequestContext, Route } from './router.js';

export interface DataplaneOverviewDependencies {
  manager: ReadOnlyResourceManager;
  statusTracker: Pick<StatusTracker, 'status'>;
}

/** The per-type counters Kuma keeps, by meshdesk's short type names. */
const KUMA_TYPES = ['cds', 'eds', 'lds', 'rds'] as const;

/**
 * `GET /meshes/{mesh}/dataplanes/_overview[/{name}]` and the older `…/dataplanes+insights[/{name}]`:
 * every Dataplane with its proxy's insight, filtered and paged as Kuma's lists are (`tag=`, `gateway=`,
 * `name=`, `filter[labels.K]`, `size`, `offset`).
 */
export function dataplaneOverviewRoutes(deps: DataplaneOverviewDependencies): Route[] {
  return ['/meshes/:mesh/dataplanes/_overview', '/meshes/:mesh/dataplanes+insights'].flatMap((path): Route[] => [
    { method: 'GET', path, handler: (context) => listOverviews(deps, context) },
    {
      method: 'GET',
      path: `${path}/:name`,
      handler: ({ params }) =>
        titled('Could not retrieve a resource', async () => {
          const dataplane = await deps.manager.get('Dataplane', { mesh: params.mesh!, name: params.name! });
          return { json: dataplaneOverview(dataplane, deps.statusTracker.status(proxyIdOf(dataplane))) };
        }),
    },
  ]);
}

async function listOverviews(deps: DataplaneOverviewDependencies, { params, query, request }: RequestContext) {
  const mesh = params.mesh!;
  await titled('Failed to retrieve Mesh', () => deps.manager.get('Mesh', { mesh: '', name: mesh }));
  const listQuery = readListQuery(query, '/meshes/{mesh}/dataplanes/_overview', true);
  return titled(LIST_ERROR_TITLE, async () => {
    const dataplanes = (await deps.manager.list('Dataplane', { mesh })).filter(listQuery.keep);
    const page = pageOf(dataplanes, listQuery, requestUrlOf(request.headers.host, request.url));
    return {
      json: { ...page, items: page.items.map((dataplane) => dataplaneOverview(dataplane, deps.statusTracker.status(proxyIdOf(dataplane)))) },
    };
  });
}

/** The absolute URL a request was made to, for a list's `next` link. */
export function requestUrlOf(host: string | undefined, target: string | undefined): URL {
  return new URL(target ?? '/', `http://${host ?? 'localhost'}`);
}

function proxyIdOf({ meta }: Resource<'Dataplane'>): string {
  return `${meta.mesh}.${meta.name}`;
}

/** What both DataplaneOverview shapes (Kuma's here, meshdesk's `dataplanes+status`) take from the Dataplane itself. */
export function overviewOf(dataplane: Resource<'Dataplane'>) {
  const { mesh, name, creationTime, modificationTime, labels } = dataplane.meta;
  return { type: 'DataplaneOverview' as const, mesh, name, creationTime, modificationTime, labels, dataplane: dataplane.spec };
}

/** One Dataplane with its insight; a proxy meshdesk has not seen has none, as in Kuma. */
export function dataplaneOverview(dataplane: Resource<'Dataplane'>, status: ProxyStatus | undefined): KumaDataplaneOverview {
  const { labels, ...overview } = overviewOf(dataplane);
  return {
    ...overview,
    ...(Object.keys(labels).length > 0 && { labels }),
    kri: kriOf(dataplane),
    ...(status && { dataplaneInsight: { subscriptions: [subscriptionOf(status)] } }),
  };
}

/**
 * The proxy's current (or last) stream as Kuma's DiscoverySubscription: online while it has a connect
 * time and no disconnect time, which is how kumactl tells Online from Offline.
 */
function subscriptionOf(status: ProxyStatus): KumaDiscoverySubscription {
  const { stream, types } = status;
  const perType = Object.fromEntries(
    KUMA_TYPES.map((short) => [short, statsOf(types.filter((type) => type.type === short))]),
  ) as Record<(typeof KUMA_TYPES)[number], KumaDiscoveryServiceStats>;
  const lastUpdate = Math.max(...types.flatMap(timesOf));
  return {
    id: String(stream.id),
    controlPlaneInstanceId: CONTROL_PLANE_INSTANCE_ID,
    connectTime: new Date(stream.openedAt).toISOString(),
    ...(stream.closedAt !== undefined && { disconnectTime: new Date(stream.closedAt).toISOString() }),
    status: {
      ...(Number.isFinite(lastUpdate) && { lastUpdateTime: new Date(lastUpdate).toISOString() }),
      total: statsOf(types),
      ...perType,
    },
  };
}

/** Kuma's counters over some types: uint64 as strings, zeros left out as protobuf JSON does. */
function statsOf(types: TypeStatus[]): KumaDiscoveryServiceStats {
  const sum = (count: keyof TypeStatus['counts']) => types.reduce((total, type) => total + type.counts[count], 0);
  const stats: KumaDiscoveryServiceStats = {};
  const sent = sum('responses');
  const acknowledged = sum('acks');
  const rejected = sum('nacks');
  if (sent > 0) stats.responsesSent = String(sent);
  if (acknowledged > 0) stats.responsesAcknowledged = String(acknowledged);
  if (rejected > 0) stats.responsesRejected = String(rejected);
  return stats;
}

function timesOf(type: TypeStatus): number[] {
  return [type.lastSent?.at, type.lastAcked?.at, type.lastNack?.at].filter((at): at is number => at !== undefined);
}
