import type { ProtoJson } from '../protocol/proto-json.js';

/**
 * The address ranges Envoy treats as internal (it keeps internal-only headers from these clients):
 * kuma-cp's default `ipam.knownInternalCIDRs` (pkg/config/app/kuma-cp/kuma-cp.defaults.yaml),
 * without the IPv6 ranges, which Kuma drops unless kuma-dp says IPv6 is enabled (the running
 * kuma-cp dumps show these four). meshdesk does not learn that from a proxy.
 */
const KNOWN_INTERNAL_IPV4_CIDRS: readonly [string, number][] = [
  ['10.0.0.0', 8],
  ['192.168.0.0', 16],
  ['172.16.0.0', 12],
  ['127.0.0.1', 32],
];

/** HttpConnectionManager fields declaring the internal addresses, as Kuma writes them on every sidecar listener. */
export function internalAddressConfigFields(): ProtoJson {
  return {
    internal_address_config: {
      cidr_ranges: KNOWN_INTERNAL_IPV4_CIDRS.map(([address_prefix, prefix_len]) => ({ address_prefix, prefix_len })),
    },
  };
}
