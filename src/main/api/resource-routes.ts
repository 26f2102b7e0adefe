import { notAppliedFields } from '../../shared/not-applied.js';
import type { NotAppliedBody } from '../../shared/api-types.js';
import type { Resource, ResourceType } from '../../shared/resources.js';
import type { ResourceManager } from '../manager/interfaces.js';
import { toKumaObject } from '../resources/kuma-json.js';
import { parseResourceText } from '../resources/parse.js';
import { validateResource } from '../resources/validate.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../xds/callbacks/dataplane-lifecycle.js';
import { ApiError } from './api-error.js';
import type { RequestContext, Route } from './router.js';

/** `PUT …?takeOver=true`: update a Dataplane its proxy registered, making it the API's own. */
export const TAKE_OVER_PARAMETER = 'takeOver';
/** `PUT …?createOnly=true`, for clients that cannot send `If-None-Match: *` (the app's IPC bridge carries no headers). */
export const CREATE_ONLY_PARAMETER = 'createOnly';

/** How one resource type appears in Kuma's API: Meshes at the top level, Dataplanes inside a mesh. */
interface Collection {
  type: ResourceType;
  /** Path of one item; `:mesh` and `:name` are the parameters. */
  itemPath: string;
  listPath: string;
  meshOf(params: Record<string, string>): string;
  nameOf(params: Record<string, string>): string;
}

const COLLECTIONS: readonly Collection[] = [
  {
    type: 'Mesh',
    itemPath: '/meshes/:mesh',
    listPath: '/meshes',
    meshOf: () => '',
    nameOf: (params) => params.mesh!,
  },
  {
    type: 'Dataplane',
    itemPath: '/meshes/:mesh/dataplanes/:name',
    listPath: '/meshes/:mesh/dataplanes',
    meshOf: (params) => params.mesh!,
    nameOf: (params) => params.name!,
  },
];

/** Kuma's list envelope. */
function listBody(resources: Resource[]) {
  return { total: resources.length, items: resources.map(toKumaObject), next: null };
}

/**
 * A proxy-registered Dataplane goes when its proxy goes; an API write would silently make it a
 * permanent one (and the proxy's next registration would overwrite the edit). Only on request.
 */
function refuseProxyRegistered(current: Resource | undefined, takeOver: boolean): void {
  if (takeOver || current?.type !== 'Dataplane' || current.meta.labels[ORIGIN_LABEL] !== PROXY_ORIGIN) return;
  const { mesh, name } = current.meta;
  throw new ApiError(
    409,
    'Dataplane registered by its proxy',
    `Dataplane "${name}" in mesh "${mesh}" was registered by its proxy (${mesh}.${name}) and is deleted when the proxy leaves; ` +
      `to update it through the API, which makes it a Dataplane of the API's that stays, add ?${TAKE_OVER_PARAMETER}=true`,
    [{ field: `labels["${ORIGIN_LABEL}"]`, message: `is "${PROXY_ORIGIN}": add ?${TAKE_OVER_PARAMETER}=true to take it over` }],
  );
}

export function resourceRoutes(manager: ResourceManager): Route[] {
  return COLLECTIONS.flatMap((collection): Route[] => {
    const key = ({ params }: RequestContext) => ({
      type: collection.type,
      mesh: collection.meshOf(params),
      name: collection.nameOf(params),
    });
    return [
      {
        method: 'GET',
        path: collection.listPath,
        handler: async ({ params }) =>
          ({ json: listBody(await manager.list(collection.type, { mesh: collection.meshOf(params) })) }),
      },
      {
        method: 'GET',
        path: collection.itemPath,
        handler: async (context) => {
          const { type, mesh, name } = key(context);
          return { json: toKumaObject(await manager.get(type, { mesh, name })) };
        },
      },
      {
        // Which stored fields meshdesk keeps but does not act on (Kuma accepts them; see shared/not-applied.ts).
        method: 'GET',
        path: `${collection.itemPath}/_not-applied`,
        handler: async (context) => {
          const { type, mesh, name } = key(context);
          const resource = await manager.get(type, { mesh, name });
          const body: NotAppliedBody = { notApplied: notAppliedFields(type, resource.spec) };
          return { json: body };
        },
      },
      {
        method: 'PUT',
        path: collection.itemPath,
        handler: async (context) => {
          const expected = key(context);
          const input = validateResource(parseResourceText(await context.body()), {
            type: expected.type,
            mesh: expected.mesh || undefined,
            name: expected.name,
          });
          // Only the proxy lifecycle marks a Dataplane as the proxy's; what the API writes is the API's.
          const { [ORIGIN_LABEL]: _claimed, ...labels } = input.labels;
          const write = { ...input, labels };
          // `If-None-Match: *` (HTTP's "only if nothing is there"): create, never replace.
          if (context.request.headers['if-none-match']?.trim() === '*' || context.query.get(CREATE_ONLY_PARAMETER) === 'true') {
            return { status: 201, json: toKumaObject(await manager.create(write)) };
          }
          // A body with a version asks for optimistic concurrency: update exactly that version or fail.
          const takeOver = context.query.get(TAKE_OVER_PARAMETER) === 'true';
          const { resource, created } = await manager.upsert(write, {
            precondition: (current) => refuseProxyRegistered(current, takeOver),
          });
          return { status: created ? 201 : 200, json: toKumaObject(resource) };
        },
      },
      {
        method: 'DELETE',
        path: collection.itemPath,
        handler: async (context) => {
          await manager.delete(key(context));
          return { json: {} };
        },
      },
    ];
  }).concat({
    method: 'GET',
    path: '/dataplanes',
    handler: async () => ({ json: listBody(await manager.list('Dataplane')) }),
  });
}
