import type { InboundEnforcement, PermissionMatrixView, ProxyEnforcement } from '../../shared/permission-types.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { permissionMatrix, type PermissionMatrix } from '../policies/meshtrafficpermission/permission-matrix.js';
import { listenerRbac } from '../policies/meshtrafficpermission/rbac-filters.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { decodeResource } from '../xds/protocol/decode.js';
import type { ProtoJson } from '../xds/protocol/proto-json.js';
import { LISTENER_TYPE_URL } from '../xds/protocol/type-urls.js';
import type { SnapshotCache } from '../xds/server/snapshot-cache.js';
import type { Snapshot } from '../xds/server/snapshot.js';
import { titled } from './api-error.js';
import { requestUrlOf } from './dataplane-overview.js';
import { nextPageUrl, readPage } from './list-query.js';
import type { Route } from './router.js';

export interface PermissionDependencies {
  manager: ReadOnlyResourceManager;
  /** The MeshContexts proxies are generated from: the decisions shown are the ones their RBAC filters make. */
  meshContexts: { get(mesh: string): Promise<MeshContext> };
  snapshots: Pick<SnapshotCache, 'getSnapshot'>;
}

/**
 * meshdesk's `GET /meshes/{mesh}/_permissions`: the permission matrix of the mesh (every caller
 * service against every destination service, as MeshTrafficPermission decides), and where each
 * decision is enforced: per destination proxy, its inbound listener and the RBAC filters in the
 * configuration it was last sent. Paged over cells as Kuma pages lists (`size`, default 100, at
 * most 1,000; `offset`; `next`): cells grow as the square of the services, and each lists at most
 * MAX_LISTED_PATHS paths, so an answer stays small however many Dataplanes the mesh has.
 */
export function permissionRoutes(deps: PermissionDependencies): Route[] {
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/_permissions',
      handler: async ({ params, query, request }) => {
        const page = readPage(query);
        await titled('Could not retrieve a resource', () => deps.manager.get('Mesh', { mesh: '', name: params.mesh! }));
        const matrix = permissionMatrix(await deps.meshContexts.get(params.mesh!), page);
        const next = nextPageUrl(requestUrlOf(request.headers.host, request.url), page, matrix.total);
        const view: PermissionMatrixView = { ...matrix, next, enforcement: enforcementOf(matrix, deps.snapshots) };
        return { json: view };
      },
    },
  ];
}

/** Every destination proxy of the matrix, with what its generated config checks callers with. */
function enforcementOf(matrix: PermissionMatrix, snapshots: PermissionDependencies['snapshots']): Record<string, ProxyEnforcement> {
  const inboundsByDataplane = new Map<string, Set<string>>();
  for (const path of matrix.cells.flatMap((cell) => cell.paths)) {
    if (!inboundsByDataplane.has(path.dataplane)) inboundsByDataplane.set(path.dataplane, new Set());
    inboundsByDataplane.get(path.dataplane)!.add(path.inbound);
  }
  const enforcement: Record<string, ProxyEnforcement> = {};
  for (const [dataplane, inbounds] of inboundsByDataplane) {
    const proxyId = `${matrix.mesh}.${dataplane}`;
    const snapshot = snapshots.getSnapshot(proxyId);
    const listeners = snapshot && inboundListeners(snapshot);
    enforcement[dataplane] = {
      dataplane,
      proxyId,
      connected: listeners !== undefined,
      inbounds: [...inbounds].map((inbound) =>
        listeners ? inboundEnforcement(inbound, listeners.get(inbound), matrix.enforced) : { inbound, filters: [], missing: 'not connected, config not generated' },
      ),
    };
  }
  return enforcement;
}

function inboundEnforcement(inbound: string, listener: ProtoJson | undefined, enforced: boolean): InboundEnforcement {
  if (!listener) return { inbound, filters: [], missing: 'the generated config has no listener for this inbound' };
  const { tlsChains, filters } = listenerRbac(listener);
  const name = String(listener.name);
  if (filters.length > 0) return { inbound, listener: name, filters };
  const missing = !enforced
    ? 'mTLS is off: no RBAC filter is generated'
    : tlsChains === 0
      ? 'the listener has no mTLS filter chain: callers are not checked here'
      : 'the generated config has no RBAC filter on this listener';
  return { inbound, listener: name, filters, missing };
}

/** The inbound listeners a proxy was sent, decoded as the config dump shows them, by `address:port` as rules key inbounds. */
function inboundListeners(snapshot: Snapshot): Map<string, ProtoJson> {
  const listeners = new Map<string, ProtoJson>();
  for (const { any } of snapshot.get(LISTENER_TYPE_URL)?.resources.values() ?? []) {
    const listener = decodeResource(any);
    const socket = ((listener.address as ProtoJson | undefined)?.socket_address as ProtoJson | undefined) ?? {};
    if (listener.traffic_direction === 'OUTBOUND') continue;
    listeners.set(`${String(socket.address)}:${Number(socket.port_value)}`, listener);
  }
  return listeners;
}
