// Reading and rewriting the filters of a listener's filter chains, copy on write: the generated
// resources are shared and frozen (see EnvoyResources), so every change builds new objects.
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { HTTP_CONNECTION_MANAGER_FILTER, ROUTER_FILTER } from '../../xds/generate/extension-types.js';

export interface FilterChainFilters {
  /** The filter chain's index, and the path of its `filters` list (`filter_chains[0].filters`). */
  chain: number;
  path: string;
  filters: readonly ProtoJson[];
}

/** Every filter chain of a listener with its network filters. */
export function filterChains(listener: ProtoJson): FilterChainFilters[] {
  const chains = (listener.filter_chains ?? []) as readonly ProtoJson[];
  return chains.map((chain, index) => ({ chain: index, path: `filter_chains[${index}].filters`, filters: (chain.filters ?? []) as ProtoJson[] }));
}

/** The listener with filter chain `chain`'s network filters replaced. */
export function withChainFilters(listener: ProtoJson, chain: number, filters: readonly ProtoJson[]): ProtoJson {
  const chains = [...((listener.filter_chains ?? []) as readonly ProtoJson[])];
  chains[chain] = { ...chains[chain], filters };
  return { ...listener, filter_chains: chains };
}

/** The index of a chain's HttpConnectionManager filter, -1 when the chain has none (tcp_proxy). */
export function httpConnectionManagerIndex(filters: readonly ProtoJson[]): number {
  return filters.findIndex((filter) => filter.name === HTTP_CONNECTION_MANAGER_FILTER);
}

/** The HttpConnectionManager (its typed config) of a chain's filters, if it has one. */
export function httpConnectionManagerOf(filters: readonly ProtoJson[]): ProtoJson | undefined {
  const index = httpConnectionManagerIndex(filters);
  return index < 0 ? undefined : (filters[index]!.typed_config as ProtoJson);
}

/** The filters with the HttpConnectionManager's typed config replaced. */
export function withHttpConnectionManager(filters: readonly ProtoJson[], hcm: ProtoJson): ProtoJson[] {
  const index = httpConnectionManagerIndex(filters);
  return filters.map((filter, at) => (at === index ? { ...filter, typed_config: hcm } : filter));
}

/**
 * Kuma's InsertHTTPFiltersBeforeRouter: `added` go right before the router (which must stay last),
 * or at the end without one. Gives the new HCM and the index of the first added filter.
 */
export function insertHttpFiltersBeforeRouter(hcm: ProtoJson, added: readonly ProtoJson[]): { hcm: ProtoJson; index: number } {
  const filters = (hcm.http_filters ?? []) as readonly ProtoJson[];
  const router = filters.findIndex((filter) => filter.name === ROUTER_FILTER);
  const index = router < 0 ? filters.length : router;
  return { hcm: { ...hcm, http_filters: [...filters.slice(0, index), ...added, ...filters.slice(index)] }, index };
}
