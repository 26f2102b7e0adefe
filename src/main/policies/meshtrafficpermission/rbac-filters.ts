// Where a listener checks its callers: the RBAC filters of its filter chains, as the config dump shows them.
import type { RbacFilter } from '../../../shared/permission-types.js';
import { HTTP_CONNECTION_MANAGER_FILTER, TLS_TRANSPORT_SOCKET } from '../../xds/generate/extension-types.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { HTTP_RBAC_FILTER, NETWORK_RBAC_FILTER } from './rbac.js';

/** What a decoded listener has to check callers with: its mTLS filter chains and their RBAC filters. */
export interface ListenerRbac {
  /** Filter chains with Kuma's TLS transport socket: the only ones RBAC goes on. */
  tlsChains: number;
  filters: RbacFilter[];
}

/**
 * The RBAC filters of a listener (decoded, every Any expanded): network filters of each chain and
 * HTTP filters inside each chain's HttpConnectionManager, each with its path in the listener.
 */
export function listenerRbac(listener: ProtoJson): ListenerRbac {
  const chains = [
    ...((listener.filter_chains as ProtoJson[] | undefined) ?? []).map((chain, index) => ({ chain, path: `filter_chains[${index}]` })),
    ...(listener.default_filter_chain ? [{ chain: listener.default_filter_chain as ProtoJson, path: 'default_filter_chain' }] : []),
  ];
  const filters: RbacFilter[] = [];
  for (const { chain, path } of chains) {
    ((chain.filters as ProtoJson[] | undefined) ?? []).forEach((filter, index) => {
      const at = `${path}.filters[${index}]`;
      if (filter.name === NETWORK_RBAC_FILTER) filters.push({ name: NETWORK_RBAC_FILTER, path: at, config: filter.typed_config });
      if (filter.name !== HTTP_CONNECTION_MANAGER_FILTER) return;
      const httpFilters = ((filter.typed_config as ProtoJson | undefined)?.http_filters as ProtoJson[] | undefined) ?? [];
      httpFilters.forEach((httpFilter, httpIndex) => {
        if (httpFilter.name === HTTP_RBAC_FILTER) filters.push({ name: HTTP_RBAC_FILTER, path: `${at}.typed_config.http_filters[${httpIndex}]`, config: httpFilter.typed_config });
      });
    });
  }
  const tlsChains = chains.filter(({ chain }) => (chain.transport_socket as ProtoJson | undefined)?.name === TLS_TRANSPORT_SOCKET).length;
  return { tlsChains, filters };
}
