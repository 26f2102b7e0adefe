// `meshdesk export`: the whole store as the multi-document YAML that `kumactl apply -f` takes.
import { stringify } from 'yaml';
import { RESOURCE_TYPES, type Resource, type ResourceType } from '../../shared/resources.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import { toKumaObject } from '../resources/kuma-json.js';
import { ORIGIN_LABEL, PROXY_ORIGIN } from '../xds/callbacks/dataplane-lifecycle.js';

export interface ExportOptions {
  /**
   * Also export Dataplanes their proxies registered (`meshdesk.io/origin: proxy`). Off by default:
   * in Kuma such a Dataplane comes from kuma-dp when the proxy starts, not from `kumactl apply`.
   */
  includeProxyRegistered?: boolean;
}

export interface ExportResult {
  /** `---`-separated documents, one resource each; empty when there is nothing to export. */
  text: string;
  exported: number;
  /** Proxy-registered Dataplanes left out (see ExportOptions). */
  skippedProxyRegistered: number;
}

/** The order `kumactl apply` can write them in: a mesh-scoped resource needs its Mesh. */
export const MESHES_FIRST: readonly ResourceType[] = [...RESOURCE_TYPES].sort((a, b) => Number(b === 'Mesh') - Number(a === 'Mesh'));

/**
 * Meshes first, then the mesh-scoped resources, each type ordered by mesh and name: `kumactl apply`
 * writes the documents in order, and a Dataplane needs its Mesh. Settings and tokens are meshdesk's
 * own and never exported.
 */
export async function exportResources(manager: ReadOnlyResourceManager, options: ExportOptions = {}): Promise<ExportResult> {
  const lists = await Promise.all(MESHES_FIRST.map((type) => manager.list(type)));
  const resources = lists.flat();
  const exported = resources.filter((resource) => options.includeProxyRegistered || !isProxyRegistered(resource));
  return {
    text: exported.map((resource) => `---\n${stringify(exportDocument(resource), { lineWidth: 0 })}`).join(''),
    exported: exported.length,
    skippedProxyRegistered: resources.length - exported.length,
  };
}

/** The resource as the API shows it, minus meshdesk's optimistic-concurrency `version`, which Kuma does not know. */
export function exportDocument(resource: Resource): Record<string, unknown> {
  const { version: _version, ...document } = toKumaObject(resource);
  return document;
}

function isProxyRegistered(resource: Resource): boolean {
  return resource.type === 'Dataplane' && resource.meta.labels[ORIGIN_LABEL] === PROXY_ORIGIN;
}
