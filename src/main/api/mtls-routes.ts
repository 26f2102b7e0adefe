import type { MeshMtlsView, ProxyIdentityView } from '../../shared/mtls-types.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { MeshCaStore } from '../mtls/mesh-ca-store.js';
import { meshMtls } from '../mtls/mesh-mtls.js';
import type { ProxyIdentities } from '../mtls/proxy-identities.js';
import { titled } from './api-error.js';
import type { Route } from './router.js';

export interface MtlsDependencies {
  manager: ReadOnlyResourceManager;
  meshCas: Pick<MeshCaStore, 'info'>;
  identities: Pick<ProxyIdentities, 'status'>;
}

/**
 * meshdesk's views of mesh mTLS, public halves only (no key ever leaves the data directory):
 * - `GET /meshes/{mesh}/_mtls`: the mesh's backend, mode, certificate lifetime and its CA (fingerprint,
 *   subject, validity). Asking creates the CA when the mesh enabled a builtin backend and has none yet,
 *   as the first proxy of the mesh would;
 * - `GET /meshes/{mesh}/dataplanes/{name}/_identity`: `{identity}`, the connected proxy's identity
 *   certificate (URIs, serial, validity, next rotation), `null` when it has none (offline, or its mesh
 *   has mTLS off): having none is a state the UI shows, not an error.
 */
export function mtlsRoutes(deps: MtlsDependencies): Route[] {
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/_mtls',
      handler: async ({ params }) => {
        const mesh = await titled('Could not retrieve a resource', () => deps.manager.get('Mesh', { mesh: '', name: params.mesh! }));
        const mtls = meshMtls(mesh);
        if (!mtls) return { json: { mesh: mesh.meta.name, mtls: null } satisfies MeshMtlsView };
        const { fingerprint, subject, notBefore, notAfter } = deps.meshCas.info(mtls.mesh, mtls.backend);
        const { backend, mode, certValidityMs } = mtls;
        const view: MeshMtlsView = { mesh: mtls.mesh, mtls: { backend, mode, certValidityMs, ca: { fingerprint, subject, notBefore, notAfter } } };
        return { json: view };
      },
    },
    {
      method: 'GET',
      path: '/meshes/:mesh/dataplanes/:name/_identity',
      handler: ({ params }) => {
        const status = deps.identities.status(`${params.mesh!}.${params.name!}`);
        const identity: ProxyIdentityView | null = status ? { ...status, uris: [...status.uris] } : null;
        return { json: { identity } };
      },
    },
  ];
}
