// Kuma's DefaultInboundTimeout (pkg/defaults/mesh/meshtimeout.go): what the inbound generator
// writes before the policy plugins run, "bigger than outbound side timeouts or disabled". The
// MeshTimeout plugin then overwrites most of it (see mesh-timeout-defaults.ts); these are the
// values that survive into what a running kuma-cp sends.

/** HttpConnectionManager `stream_idle_timeout` of an inbound listener (2 × 30 min). */
export const INBOUND_STREAM_IDLE_TIMEOUT = '3600s';

/**
 * Upstream HTTP idle timeout of a grpc inbound's local cluster (2 × 1 h): MeshTimeout rewrites it
 * only for http and http2, so grpc keeps the generator's value.
 */
export const INBOUND_GRPC_CLUSTER_IDLE_TIMEOUT = '7200s';
