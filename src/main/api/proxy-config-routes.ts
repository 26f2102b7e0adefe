// `GET /meshes/{mesh}/dataplanes/{name}/_config` (Kuma's configForProxy, kumactl `inspect dataplane
// --type config [--shadow] [--include diff]`): the proxy's configuration generated now from the
// MeshContext, by type URL and name; with `shadow=true` the shadow policies are applied as if live,
// and `include=diff` adds the JSON Patch from the configuration the proxy has to that one.
import type { SnapshotResourcesJson } from '../../shared/api-types.js';
import { withShadowApplied } from '../policies/shadow/shadow-context.js';
import { generateProxy } from '../xds/generate/profile.js';
import { decodeResourceJsonNames } from '../xds/protocol/decode.js';
import { encodeResource } from '../xds/protocol/encode.js';
import type { ProtoJson } from '../xds/protocol/proto-json.js';
import { ApiError, titled } from './api-error.js';
import { jsonPatchDiff } from './json-patch-diff.js';
import { proxyOf, type PolicyPreviewDependencies } from './policy-preview-routes.js';
import type { Route } from './router.js';
import { readShadowParameter } from './shadow-parameter.js';

/** Kuma's `xds` map: `{<typeUrl>: {<name>: resource}}`, types without resources left out. */
export type ProxyConfigXds = Record<string, Record<string, unknown>>;

export function proxyConfigRoutes(deps: Pick<PolicyPreviewDependencies, 'manager' | 'meshContexts' | 'connectedProxies'>): Route[] {
  return [
    {
      method: 'GET',
      path: '/meshes/:mesh/dataplanes/:name/_config',
      handler: async ({ params, query }) => {
        const mesh = params.mesh!;
        await titled('Failed to retrieve Mesh', () => deps.manager.get('Mesh', { mesh: '', name: mesh }));
        const shadow = readShadowParameter(query);
        const withDiff = readInclude(query);
        const dataplane = await titled('Could not retrieve Dataplane', () => deps.manager.get('Dataplane', { mesh, name: params.name! }));
        const context = await deps.meshContexts.get(mesh);
        const proxy = proxyOf(deps, dataplane);
        const configOf = (applyShadow: boolean) => xdsMap(generateProxy(applyShadow ? withShadowApplied(context) : context, proxy).resources);
        const xds = configOf(shadow);
        if (!withDiff) return { json: { xds } };
        return { json: { diff: jsonPatchDiff(shadow ? configOf(false) : xds, xds), xds } };
      },
    },
  ];
}

/** `include`: a comma-separated list of which `diff` is the only value (Kuma's configForProxyParams). */
function readInclude(query: URLSearchParams): boolean {
  const value = query.get('include');
  if (value === null || value === '') return false;
  for (const part of value.split(',')) {
    if (part !== 'diff') throw new ApiError(400, 'Bad Request', "bad request: unsupported value for query parameter 'include'");
  }
  return true;
}

/** As the wire carries them (encoded, then decoded), in Go's protojson form, as Kuma answers. */
function xdsMap(resources: SnapshotResourcesJson): ProxyConfigXds {
  const xds: ProxyConfigXds = {};
  for (const [typeUrl, list] of Object.entries(resources)) {
    if (list.length === 0) continue;
    xds[typeUrl] = Object.fromEntries(list.map(({ name, resource }) => [name, decodeResourceJsonNames(encodeResource(typeUrl, resource as ProtoJson))]));
  }
  return xds;
}
