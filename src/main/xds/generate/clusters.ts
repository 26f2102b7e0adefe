import { isIP } from 'node:net';
import type { Protocol } from '../../../shared/resources.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { adsConfigSource } from './config-source.js';
import { socketAddress } from './endpoints.js';
import { HTTP_PROTOCOL_OPTIONS, HTTP_PROTOCOL_OPTIONS_TYPE_URL } from './extension-types.js';
import { sanitizeMetric } from './names.js';

/** Connect timeout of the clusters that no policy configures (the bootstrap's ADS cluster). */
const CONNECT_TIMEOUT = '5s';

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

/** The HTTP version a cluster speaks upstream when it must be explicit. */
export type ExplicitHttpVersion = 'http1' | 'http2';

/**
 * The cluster's `HttpProtocolOptions` extension: the HTTP version to speak upstream and the common
 * options (timeouts); none when there is neither.
 */
export function upstreamHttpProtocolOptions(version: ExplicitHttpVersion | undefined, common?: ProtoJson): ProtoJson {
  if (version === undefined && common === undefined) return {};
  const explicit = version === 'http2' ? { http2_protocol_options: {} } : { http_protocol_options: {} };
  return {
    typed_extension_protocol_options: {
      [HTTP_PROTOCOL_OPTIONS]: {
        '@type': HTTP_PROTOCOL_OPTIONS_TYPE_URL,
        ...(common && { common_http_protocol_options: common }),
        ...(version && { explicit_http_config: explicit }),
      },
    },
  };
}

/** Cluster fields making Envoy speak HTTP/2 upstream, which http2 and gRPC services need. */
export function http2UpstreamOptions(): ProtoJson {
  return upstreamHttpProtocolOptions('http2');
}

/**
 * The HTTP version to speak to a service of `protocol`: HTTP/2 for http2 and gRPC, HTTP/1.1 for
 * http (explicit, as Kuma writes it, which also lets the options carry timeouts), none for tcp.
 */
export function upstreamHttpVersion(protocol: Protocol): ExplicitHttpVersion | undefined {
  if (protocol === 'http2' || protocol === 'grpc') return 'http2';
  return protocol === 'http' ? 'http1' : undefined;
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
