// The ADS variant a bootstrap asks for, as the Connect form and the Bootstrap tab offer it.
import type { SegmentedOption } from '../../components/Segmented.svelte';
import type { XdsProtocol } from '../api/client.js';
import type { ProxyKind } from './connect-form.js';

export type { XdsProtocol };

/** Why a proxyless gRPC bootstrap has no choice: the API answers SotW only for it. */
export const GRPC_SOTW_ONLY = "gRPC's xDS clients speak State of the World only";

/** SotW and delta for Envoy; for proxyless gRPC delta is shown, disabled, with the reason. */
export function xdsProtocolOptions(kind: ProxyKind): SegmentedOption<XdsProtocol>[] {
  return [
    { id: 'sotw', label: 'SotW', title: 'State of the World: every response carries all resources of its type (api_type GRPC, Kuma\'s default)' },
    kind === 'grpc'
      ? { id: 'delta', label: 'Delta', title: GRPC_SOTW_ONLY, disabled: true }
      : { id: 'delta', label: 'Delta', title: 'Incremental: responses carry only what changed (api_type DELTA_GRPC)' },
  ];
}
