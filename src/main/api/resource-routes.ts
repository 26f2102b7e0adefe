import { notAppliedFields } from '../../shared/not-applied.js';
import type { NotAppliedBody, ResourceTypeDescription, ResourceTypeDescriptionList } from '../../shared/api-types.js';
import { isMeshScoped, type Resource, type ResourceType } from '../../shared/resources.js';
import { isPolicyType } from '../../shared/policy-types.js';
import type { PolicyResource } from '../policies/core/policy.js';
import { checkPolicyNow } from './policy-warnings.js';
import { SERVICE_MODEL_DESCRIPTORS } from '../meshservice/descriptors.js';
import { serviceModelWarnings } from '../meshservice/deprecations.js';
import { isMeshServiceModelType } from '../../shared/meshservice-types.js';
import { POLICY_DESCRIPTORS } from '../policies/descriptors.js';
import type { ResourceManager } from '../manager/interfaces.js';
import { SHORT_NAMES, parseKri } from '../resources/kri.js';
import { toKumaObject } from '../resources/kuma-json.js';
import { dns1035LabelProblems } from '../resources/dns-1035-label.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../xds/callbacks/dataplane-lifecycle.js';
import { ApiError, titled } from './api-error.js';
import { requestUrlOf } from './dataplane-overview.js';
import { LIST_ERROR_TITLE, pageOf, readListQuery } from './list-query.js';
import { requireImmutableLabelsKept } from './label-rules.js';
import type { BodyReaderPool } from './body-reading/body-reader-pool.js';
import { requireValidWorkloadLabel } from './workload-label.js';
import type { RequestContext, Route } from './router.js';

/** `PUT …?takeOver=true`: update a Dataplane its proxy registered, making it the API's own. */
export const TAKE_OVER_PARAMETER = 'takeOver';
/** `PUT …?createOnly=true`, for clients that cannot send `If-None-Match: *` (the app's IPC bridge carries no headers). */
export const CREATE_ONLY_PARAMETER = 'createOnly';

/** How one resource type appears in Kuma's API: Meshes at the top level, the other types inside a mesh. */
interface Collection {
  type: ResourceType;
  /** Kuma's ws path (`meshes`, `dataplanes`, `meshtimeouts`): the item and list paths are made of it. */
  wsPath: string;
  /** Kuma's type description, as `GET /_resources` lists it. */
  description: ResourceTypeDescription;
  /** Path of one item; `:mesh` and `:name` are the parameters. */
  itemPath: string;
  listPath: string;
  /** The list path as Kuma names it in errors (`/meshes/{mesh}/dataplanes`). */
  endpoint: string;
  meshOf(params: Record<string, string>): string;
  nameOf(params: Record<string, string>): string;
}

/** A mesh-scoped type at `/meshes/{mesh}/<wsPath>`. */
function meshScoped(description: ResourceTypeDescription): Collection {
  return {
    type: description.name,
    wsPath: description.path,
    description,
    itemPath: `/meshes/:mesh/${description.path}/:name`,
    listPath: `/meshes/:mesh/${description.path}`,
    endpoint: `/meshes/{mesh}/${description.path}`,
    meshOf: (params) => params.mesh!,
    nameOf: (params) => params.name!,
  };
}

/** A global type other than Mesh at `/<wsPath>` (HostnameGenerator). */
function globalScoped(description: ResourceTypeDescription): Collection {
  return {
    type: description.name,
    wsPath: description.path,
    description,
    itemPath: `/${description.path}/:name`,
    listPath: `/${description.path}`,
    endpoint: `/${description.path}`,
    meshOf: () => '',
    nameOf: (params) => params.name!,
  };
}

const COLLECTIONS: readonly Collection[] = [
  {
    type: 'Mesh',
    wsPath: 'meshes',
    description: {
      name: 'Mesh',
      singularDisplayName: 'Mesh',
      pluralDisplayName: 'Meshes',
      path: 'meshes',
      scope: 'Global',
      readOnly: false,
      includeInFederation: true,
      shortName: SHORT_NAMES.Mesh,
    },
    itemPath: '/meshes/:mesh',
    listPath: '/meshes',
    endpoint: '/meshes',
    meshOf: () => '',
    nameOf: (params) => params.mesh!,
  },
  meshScoped({
    name: 'Dataplane',
    singularDisplayName: 'Dataplane',
    pluralDisplayName: 'Dataplanes',
    path: 'dataplanes',
    scope: 'Mesh',
    readOnly: false,
    includeInFederation: false,
    shortName: SHORT_NAMES.Dataplane,
  }),
  // Policies go from a global control plane to zones (Kuma's GlobalToZonesFlag): in federation exports.
  ...POLICY_DESCRIPTORS.map((descriptor) =>
    meshScoped({
      name: descriptor.type,
      singularDisplayName: descriptor.singularDisplayName,
      pluralDisplayName: descriptor.pluralDisplayName,
      path: descriptor.path,
      scope: 'Mesh',
      readOnly: false,
      includeInFederation: true,
      shortName: descriptor.shortName,
      policy: {
        hasToTargetRef: descriptor.toKinds !== undefined,
        hasFromTargetRef: descriptor.fromKinds !== undefined,
        hasRulesTargetRef: descriptor.hasRules,
        isTargetRef: true,
        isFromAsRules: descriptor.fromAsRules,
      },
    }),
  ),
  // Kuma's service model (meshservice/): MeshService, MeshExternalService, MeshMultiZoneService, HostnameGenerator.
  ...SERVICE_MODEL_DESCRIPTORS.map((descriptor) =>
    (descriptor.scope === 'Mesh' ? meshScoped : globalScoped)({
      name: descriptor.type,
      singularDisplayName: descriptor.singularDisplayName,
      pluralDisplayName: descriptor.pluralDisplayName,
      path: descriptor.path,
      scope: descriptor.scope,
      readOnly: false,
      includeInFederation: descriptor.includeInFederation,
      shortName: descriptor.shortName,
    }),
  ),
];

/** Kuma lists the types by name. */
const RESOURCE_TYPE_DESCRIPTIONS = COLLECTIONS.map(({ description }) => description).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** Kuma's deprecation warning for a Mesh name that is not a DNS-1035 label (it still takes it). */
function meshNameWarnings(type: ResourceType, name: string): string[] {
  const problems = type === 'Mesh' ? dns1035LabelProblems(name) : [];
  if (problems.length === 0) return [];
  return [
    `Invalid Mesh resource name: '${name}'. It does not conform to the DNS format (RFC 1035). This is deprecated. Errors: ${problems.join('; ')}`,
  ];
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

/**
 * Kuma's resource endpoints (pkg/api-server/resource_endpoints.go): lists filtered and paged, items,
 * PUT answered `{}` (201 created, 200 updated; `warnings` when Kuma has some, and for a policy that
 * selects nothing, policies/warnings/), DELETE `{}`, and
 * `GET /_kri/{kri}`. A mesh-scoped list or write in a mesh that does not exist is a 404.
 */
export function resourceRoutes(manager: ResourceManager, bodyReader: BodyReaderPool): Route[] {
  /** A mesh-scoped request's mesh must exist first, as Kuma checks before anything else. */
  const requireMesh = (mesh: string) => titled('Failed to retrieve Mesh', () => manager.get('Mesh', { mesh: '', name: mesh }));

  const list = async (collection: Collection, mesh: string | undefined, context: RequestContext) => {
    const { type } = collection;
    const query = readListQuery(context.query, collection.endpoint, type === 'Dataplane');
    const resources = await titled(LIST_ERROR_TITLE, () => manager.list(type, mesh === undefined ? {} : { mesh }));
    const page = pageOf(resources.filter(query.keep), query, requestUrlOf(context.request.headers.host, context.request.url));
    return { json: { ...page, items: page.items.map(toKumaObject) } };
  };

  return COLLECTIONS.flatMap((collection): Route[] => {
    const key = ({ params }: RequestContext) => ({
      type: collection.type,
      mesh: collection.meshOf(params),
      name: collection.nameOf(params),
    });
    const scoped = isMeshScoped(collection.type);
    return [
      // Every mesh's items of a mesh-scoped type (`GET /dataplanes`, `GET /meshtimeouts`).
      ...(scoped
        ? [{ method: 'GET' as const, path: `/${collection.wsPath}`, handler: (context: RequestContext) => list({ ...collection, endpoint: `/${collection.wsPath}` }, undefined, context) }]
        : []),
      {
        method: 'GET',
        path: collection.listPath,
        handler: async (context) => {
          const mesh = scoped ? collection.meshOf(context.params) : undefined;
          if (mesh !== undefined) await requireMesh(mesh);
          return list(collection, mesh, context);
        },
      },
      {
        method: 'GET',
        path: collection.itemPath,
        handler: async (context) => {
          const { type, mesh, name } = key(context);
          return { json: toKumaObject(await titled('Could not retrieve a resource', () => manager.get(type, { mesh, name }))) };
        },
      },
      {
        // Which stored fields meshdesk keeps but does not act on (Kuma accepts them; see shared/not-applied.ts).
        method: 'GET',
        path: `${collection.itemPath}/_not-applied`,
        handler: async (context) => {
          const { type, mesh, name } = key(context);
          const resource = await titled('Could not retrieve a resource', () => manager.get(type, { mesh, name }));
          const body: NotAppliedBody = { notApplied: notAppliedFields(type, resource.spec) };
          return { json: body };
        },
      },
      {
        method: 'PUT',
        path: collection.itemPath,
        handler: async (context) => {
          const expected = key(context);
          if (scoped) await requireMesh(expected.mesh);
          const text = await context.body();
          const input = await titled('Could not process a resource', () =>
            bodyReader.read('resource', text, { type: expected.type, mesh: expected.mesh || undefined, name: expected.name }),
          );
          // Only the proxy lifecycle marks a Dataplane as the proxy's; what the API writes is the API's.
          // (Kuma's computed labels are added by the manager, on every write.)
          const { [ORIGIN_LABEL]: _claimed, ...labels } = input.labels ?? {};
          const write = { ...input, labels };
          // `If-None-Match: *` (HTTP's "only if nothing is there"): create, never replace.
          const createOnly =
            context.request.headers['if-none-match']?.trim() === '*' || context.query.get(CREATE_ONLY_PARAMETER) === 'true';
          const takeOver = context.query.get(TAKE_OVER_PARAMETER) === 'true';
          const { resource: written, created } = await titled('Could not process a resource', async () => {
            if (createOnly) {
              requireValidWorkloadLabel(write);
              return { resource: await manager.create(write), created: true };
            }
            // With a version in the body: update exactly that version or fail (optimistic concurrency).
            const result = await manager.upsert(write, {
              precondition: (current) => {
                if (current === undefined) requireValidWorkloadLabel(write);
                refuseProxyRegistered(current, takeOver);
                if (current !== undefined) requireImmutableLabelsKept(current, write);
              },
            });
            return result;
          });
          // A policy's warnings are about what was written (with the labels the manager computed).
          const warnings = isPolicyType(written.type)
            ? (await checkPolicyNow(manager, written as unknown as PolicyResource)).warnings
            : isMeshServiceModelType(input.type)
              ? serviceModelWarnings({ type: input.type, meta: { mesh: input.mesh, name: input.name, labels: input.labels, version: 0, creationTime: '', modificationTime: '' }, spec: input.spec })
              : meshNameWarnings(expected.type, expected.name);
          return { status: created ? 201 : 200, json: warnings.length > 0 ? { warnings } : {} };
        },
      },
      {
        method: 'DELETE',
        path: collection.itemPath,
        handler: async (context) => {
          await titled('Could not delete a resource', () => manager.delete(key(context)));
          return { json: {} };
        },
      },
    ];
  }).concat(
    {
      // Kuma's type catalogue, for the types meshdesk stores.
      method: 'GET',
      path: '/_resources',
      handler: () => ({ json: { resources: RESOURCE_TYPE_DESCRIPTIONS } satisfies ResourceTypeDescriptionList }),
    },
    {
      method: 'GET',
      path: '/_kri/:kri',
      handler: async ({ params }) => {
        const parts = parseKri(params.kri!);
        if (typeof parts === 'string') throw new ApiError(400, 'Bad Request', parts);
        const resource: Resource = await titled('Could not retrieve a resource', () =>
          manager.get(parts.type, { mesh: isMeshScoped(parts.type) ? parts.mesh : '', name: parts.name }),
        );
        return { json: toKumaObject(resource) };
      },
    },
  );
}

/**
 * Kuma's other mesh-scoped types (MeshGateways…), which meshdesk does not store: the mesh is
 * checked first, as Kuma does. Last in the router, so that it shadows no other `/meshes/{mesh}/…` path.
 */
export function unservedCollectionRoute(manager: ResourceManager): Route {
  return {
    method: 'GET',
    path: '/meshes/:mesh/:collection',
    handler: async ({ params }) => {
      await titled('Failed to retrieve Mesh', () => manager.get('Mesh', { mesh: '', name: params.mesh! }));
      throw new ApiError(404, 'Not found', `meshdesk does not serve ${params.collection}: it stores the types GET /_resources lists`);
    },
  };
}
