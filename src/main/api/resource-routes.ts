import { notAppliedFields } from '../../shared/not-applied.js';
import type { NotAppliedBody } from '../../shared/api-types.js';
import type { Resource, ResourceType } from '../../shared/resources.js';
import type { ResourceManager } from '../manager/interfaces.js';
import { toKumaObject } from '../resources/kuma-json.js';
import { parseResourceText } from '../resources/parse.js';
import { validateResource } from '../resources/validate.js';
import type { RequestContext, Route } from './router.js';

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
          // A body with a version asks for optimistic concurrency: update exactly that version or fail.
          if (input.version !== undefined) {
            return { status: 200, json: toKumaObject(await manager.update(input)) };
          }
          const { resource, created } = await manager.upsert(input);
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
