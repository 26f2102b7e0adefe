import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';

/**
 * The Envoy API files meshdesk encodes with, loaded from the protos that `@grpc/grpc-js-xds`
 * ships (never copied into this repo). Everything they import comes along.
 */
const ENVOY_PROTO_FILES = [
  'envoy/service/discovery/v3/ads.proto', // the ADS service, DiscoveryRequest/Response
  'envoy/config/listener/v3/listener.proto', // LDS
  'envoy/config/route/v3/route.proto', // RDS
  'envoy/config/cluster/v3/cluster.proto', // CDS
  'envoy/config/endpoint/v3/endpoint.proto', // EDS (ClusterLoadAssignment)
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/extensions/filters/http/grpc_stats/v3/config.proto', // gRPC stats on grpc listeners, as Kuma adds
  'envoy/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto',
  // HTTP/2 upstreams (gRPC and http2 services, the bootstrap's ADS cluster) are configured through it.
  'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
  'envoy/config/bootstrap/v3/bootstrap.proto', // validates generated bootstraps
  'envoy/extensions/transport_sockets/tls/v3/tls.proto', // kuma-dp's bootstraps dial the ADS port over TLS; mesh mTLS
  'envoy/extensions/transport_sockets/tls/v3/secret.proto', // SDS: each proxy's identity and its mesh's CA
  'envoy/extensions/health_check/event_sinks/file/v3/file.proto', // MeshHealthCheck's eventLogPath
  // MeshFaultInjection, MeshRateLimit, MeshAccessLog
  'envoy/extensions/filters/http/fault/v3/fault.proto',
  'envoy/extensions/common/matching/v3/extension_matcher.proto',
  'envoy/extensions/filters/common/matcher/action/v3/skip_action.proto',
  'envoy/extensions/matching/common_inputs/ssl/v3/ssl_inputs.proto',
  'envoy/extensions/matching/common_inputs/network/v3/network_inputs.proto',
  'envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto',
  'envoy/extensions/filters/network/local_ratelimit/v3/local_rate_limit.proto',
  'envoy/extensions/access_loggers/file/v3/file.proto',
  'envoy/extensions/access_loggers/filters/cel/v3/cel.proto',
  'envoy/extensions/filters/listener/tls_inspector/v3/tls_inspector.proto',
  // MeshTrafficPermission: RBAC filters (rules and the xDS matcher form, whose action is config/rbac's Action).
  'envoy/extensions/filters/http/rbac/v3/rbac.proto',
  'envoy/extensions/filters/network/rbac/v3/rbac.proto',
  // MeshRetry's host selection: retry host predicates and the retry priority.
  'envoy/extensions/retry/host/previous_hosts/v3/previous_hosts.proto',
  'envoy/extensions/retry/host/omit_host_metadata/v3/omit_host_metadata_config.proto',
  'envoy/extensions/retry/priority/previous_priorities/v3/previous_priorities_config.proto',
] as const;

/**
 * Where imports are searched, in order: the four proto trees of `@grpc/grpc-js-xds`, then
 * protobufjs's own folder for `google/protobuf/descriptor.proto` (the other well-known types are
 * bundled inside protobufjs).
 */
function protoSearchPath(): string[] {
  const require = createRequire(import.meta.url);
  const xdsPackageDir = path.dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
  const protobufjsDir = path.dirname(require.resolve('protobufjs/package.json'));
  const depsDirs = ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((dir) => path.join(xdsPackageDir, 'deps', dir));
  return [...depsDirs, protobufjsDir];
}

let cachedRoot: protobuf.Root | undefined;

/**
 * The one protobufjs Root holding every Envoy type meshdesk uses, loaded on first use and cached.
 *
 * Parsed with `keepCase`: field names are the proto names (snake_case), exactly as Envoy's docs and
 * proto3 JSON's original names write them, and as DiscoveryRequests reach the server. The
 * exception is the well-known types bundled with protobufjs (`google.protobuf.Value` has
 * `stringValue`), which only the encoder and decoder in this folder ever touch.
 */
export function protoRoot(): protobuf.Root {
  if (cachedRoot) return cachedRoot;
  const searchPath = protoSearchPath();
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    if (path.isAbsolute(target)) return target;
    for (const dir of searchPath) {
      const candidate = path.join(dir, target);
      if (fs.existsSync(candidate)) return candidate;
    }
    throw new Error(`proto import "${target}" not found in ${searchPath.join(', ')}`);
  };
  root.loadSync([...ENVOY_PROTO_FILES], { keepCase: true });
  root.resolveAll();
  cachedRoot = root;
  return root;
}

/** The message type with this full name ("envoy.config.cluster.v3.Cluster"), or undefined. */
export function findMessageType(fullName: string): protobuf.Type | undefined {
  const found = protoRoot().lookup(fullName.startsWith('.') ? fullName : `.${fullName}`);
  return found instanceof protobuf.Type ? found : undefined;
}

/** Like findMessageType, for names the code itself spells: a missing one is a bug, so it throws. */
export function messageType(fullName: string): protobuf.Type {
  const type = findMessageType(fullName);
  if (!type) throw new Error(`message type ${fullName} is not in the Envoy proto root`);
  return type;
}
