import { isIP } from 'node:net';
import type { Protocol } from '../../../shared/resources.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { adsConfigSource } from './config-source.js';
import { socketAddress } from './endpoints.js';
import { HTTP_PROTOCOL_OPTIONS, HTTP_PROTOCOL_OPTIONS_TYPE_URL } from './extension-types.js';
import { sanitizeMetric } from './names.js';

/** Kuma's default connect timeout. */
export const CONNECT_TIMEOUT = '5s';

/**
 * A cluster whose endpoints come over ADS, with only the fields gRPC reads (gRFC A27: type EDS,
 * eds_config over ADS, ROUND_ROBIN), so it serves proxyless clients as is.
 */
export function edsCluster(name: string): ProtoJson {
  return {
    name,
    ...altStatName(name),
    type: 'EDS',
    eds_cluster_config: { eds_config: adsConfigSource() },
    lb_policy: 'ROUND_ROBIN',
  };
}

/**
 * A cluster with one fixed endpoint, for the application behind an inbound or for the ADS server.
 * Envoy takes only IP addresses in a STATIC cluster, so a host name makes it STRICT_DNS, looked
 * up IPv4 first: "localhost" often resolves to ::1 first, while meshdesk listens on 127.0.0.1.
 */
export function singleEndpointCluster(name: string, address: string, port: number): ProtoJson {
  const discovery = isIP(address) === 0 ? { type: 'STRICT_DNS', dns_lookup_family: 'V4_PREFERRED' } : { type: 'STATIC' };
  return {
    name,
    ...altStatName(name),
    ...discovery,
    connect_timeout: CONNECT_TIMEOUT,
    load_assignment: {
      cluster_name: name,
      endpoints: [{ lb_endpoints: [{ endpoint: { address: socketAddress(address, port) } }] }],
    },
  };
}

/** Cluster fields making Envoy speak HTTP/2 upstream, which http2 and gRPC services need. */
export function http2UpstreamOptions(): ProtoJson {
  return {
    typed_extension_protocol_options: {
      [HTTP_PROTOCOL_OPTIONS]: {
        '@type': HTTP_PROTOCOL_OPTIONS_TYPE_URL,
        explicit_http_config: { http2_protocol_options: {} },
      },
    },
  };
}

/** Extra cluster fields for a service speaking `protocol`: none, unless it needs HTTP/2. */
export function upstreamProtocolOptions(protocol: Protocol): ProtoJson {
  return protocol === 'http2' || protocol === 'grpc' ? http2UpstreamOptions() : {};
}

/**
 * Kuma names a cluster's stats after its sanitized name when sanitizing changes it
 * (`localhost:8080` → `localhost_8080`), so Kuma's dashboards find them; otherwise Envoy's
 * default, the name itself, already is that.
 */
function altStatName(name: string): ProtoJson {
  const sanitized = sanitizeMetric(name);
  return sanitized === name ? {} : { alt_stat_name: sanitized };
}
