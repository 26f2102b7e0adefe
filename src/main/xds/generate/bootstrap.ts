import { stringify } from 'yaml';
import { SERVICE_TAG, type DataplaneResource, type ResourceInput } from '../../../shared/resources.js';
import { toKumaObject } from '../../resources/kuma-json.js';
import type { XdsProtocol } from '../protocol/ads-service.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { adminPortOf, type KnownDataplane } from './admin-port.js';
import { adsConfigSource } from './config-source.js';
import { http2UpstreamOptions, singleEndpointCluster } from './clusters.js';
import { socketAddress } from './endpoints.js';
import { TLS_TRANSPORT_SOCKET, UPSTREAM_TLS_CONTEXT_TYPE_URL } from './extension-types.js';
import { GRPC_SERVER_LISTENER_TEMPLATE } from './grpc-server-listeners.js';
import { FEATURES_METADATA_KEY, WORKDIR_METADATA_KEY } from './proxy.js';
import { identitySecretName, meshCaSecretName } from './tls-contexts.js';
import type { GrpcCertificateFiles } from '../../mtls/grpc-certificate-files.js';

const ADS_CLUSTER = 'ads_cluster';
/** Kuma's name for the static secret that validates the control plane's certificate. */
const CP_VALIDATION_SECRET = 'cp_validation_ctx';
/** Node metadata key carrying the Dataplane, as kuma-dp sends it (the universal flow). */
export const DATAPLANE_METADATA_KEY = 'dataplane.resource';
/** Node metadata key carrying the proxy's Dataplane token, when `xds.dataplaneTokens` is enabled. */
export const DATAPLANE_TOKEN_METADATA_KEY = 'meshdesk.token';

export interface EnvoyBootstrapOptions {
  dataplane: DataplaneResource;
  adsHost: string;
  adsPort: number;
  /** Overrides the Dataplane's `networking.admin.port`. */
  adminPort?: number;
  /** The Dataplanes meshdesk knows, so that a Dataplane without an admin port gets one none of them uses (admin-port.ts). */
  knownDataplanes?: readonly KnownDataplane[];
  /** The Dataplane's token (POST …/token), sent in node metadata; needed when `xds.dataplaneTokens` is enabled. */
  token?: string;
  /** The ADS variant Envoy speaks: `sotw` (default, as Kuma's) or `delta` (incremental). */
  xdsProtocol?: XdsProtocol;
  /** Connect to the ADS port over TLS (kuma-dp's way): verify the server against this CA, by this host name. */
  adsTls?: AdsTls;
  /** What the proxy supports (kuma-dp's `features`), advertised in node metadata as Kuma does. */
  features?: readonly string[];
  /** kuma-dp's work directory, in node metadata `workdir` as Kuma's bootstrap puts it (MeshAccessLog's Tcp backends log through its socket). */
  workDir?: string;
}

export interface AdsTls {
  /** The CA certificate (PEM) the control plane's certificate must chain to. */
  caCert: string;
  /** The host the proxy dials: sent as SNI and required among the certificate's SANs, as Kuma does. */
  serverName: string;
}

/** Envoy's ApiConfigSource.api_type for each ADS variant. */
const ADS_API_TYPE: { readonly [P in XdsProtocol]: string } = { sotw: 'GRPC', delta: 'DELTA_GRPC' };

/**
 * A complete Envoy bootstrap (`envoy -c bootstrap.yaml` needs nothing else): the node names the
 * Dataplane and carries it in its metadata, so connecting registers it; listeners and clusters
 * then come over ADS from the one static cluster, which speaks HTTP/2 as gRPC requires.
 */
export function generateEnvoyBootstrap(options: EnvoyBootstrapOptions): ProtoJson {
  const adminPort = options.adminPort ?? adminPortOf(knownDataplane(options.dataplane), options.knownDataplanes ?? []);
  // The Dataplane registers with the admin port it runs with: the port stays its own from then on.
  const dataplane = withAdminPort(options.dataplane, adminPort);
  const firstService = dataplane.spec.networking.inbound?.[0]?.tags?.[SERVICE_TAG];
  return {
    node: {
      id: nodeId(dataplane),
      cluster: firstService ?? dataplane.meta.name,
      metadata: {
        [DATAPLANE_METADATA_KEY]: dataplaneMetadata(dataplane),
        ...tokenMetadata(options.token),
        ...(options.features && { [FEATURES_METADATA_KEY]: [...options.features] }),
        ...(options.workDir !== undefined && { [WORKDIR_METADATA_KEY]: options.workDir }),
      },
    },
    dynamic_resources: {
      ads_config: {
        api_type: ADS_API_TYPE[options.xdsProtocol ?? 'sotw'],
        transport_api_version: 'V3',
        grpc_services: [{ envoy_grpc: { cluster_name: ADS_CLUSTER } }],
        set_node_on_first_message_only: true,
      },
      // As Kuma's bootstrap: wait for the first listeners and clusters however long the control
      // plane takes (a post-create wait can exceed Envoy's 15 s default) rather than start without them.
      lds_config: { ...adsConfigSource(), initial_fetch_timeout: '0s' },
      cds_config: { ...adsConfigSource(), initial_fetch_timeout: '0s' },
    },
    static_resources: {
      clusters: [
        {
          ...singleEndpointCluster(ADS_CLUSTER, options.adsHost, options.adsPort),
          ...http2UpstreamOptions(),
          ...(options.adsTls && { transport_socket: adsTransportSocket(options.adsTls) }),
        },
      ],
      ...(options.adsTls && { secrets: [cpValidationSecret(options.adsTls)] }),
    },
    admin: { address: socketAddress('127.0.0.1', adminPort) },
  };
}

/** TLS to the ADS port as Kuma's kuma-dp bootstrap has it: TLS 1.2 at least, SNI, a static validation secret. */
function adsTransportSocket(tls: AdsTls): ProtoJson {
  return {
    name: TLS_TRANSPORT_SOCKET,
    typed_config: {
      '@type': UPSTREAM_TLS_CONTEXT_TYPE_URL,
      sni: tls.serverName,
      common_tls_context: {
        tls_params: { tls_minimum_protocol_version: 'TLSv1_2' },
        validation_context_sds_secret_config: { name: CP_VALIDATION_SECRET },
      },
    },
  };
}

/** Trust only this CA, and only for the dialed host (as a DNS name or an IP address, whichever it is). */
function cpValidationSecret(tls: AdsTls): ProtoJson {
  return {
    name: CP_VALIDATION_SECRET,
    validation_context: {
      match_typed_subject_alt_names: ['DNS', 'IP_ADDRESS'].map((san_type) => ({ san_type, matcher: { exact: tls.serverName } })),
      trusted_ca: { inline_bytes: Buffer.from(tls.caCert).toString('base64') },
    },
  };
}

/** What the admin port rule reads of a stored (or about to be registered) Dataplane. */
export function knownDataplane({ meta, spec }: DataplaneResource): KnownDataplane {
  // A Dataplane read from a file has no creation time yet: it counts as the newest.
  return { mesh: meta.mesh, name: meta.name, ...(meta.creationTime !== '' && { creationTime: meta.creationTime }), networking: spec.networking };
}

/** A Dataplane read from a file or a request, not stored: the store's fields are placeholders the bootstrap drops. */
export function unstoredDataplane(input: ResourceInput<'Dataplane'>): DataplaneResource {
  return {
    type: 'Dataplane',
    meta: { mesh: input.mesh, name: input.name, labels: input.labels, version: 0, creationTime: '', modificationTime: '' },
    spec: input.spec,
  };
}

function withAdminPort(dataplane: DataplaneResource, port: number): DataplaneResource {
  if (dataplane.spec.networking.admin?.port === port) return dataplane;
  return { ...dataplane, spec: { ...dataplane.spec, networking: { ...dataplane.spec.networking, admin: { port } } } };
}

export function bootstrapToYaml(bootstrap: ProtoJson): string {
  // lineWidth 0: never fold the long Dataplane JSON string across lines.
  return stringify(bootstrap, { lineWidth: 0 });
}

export interface GrpcBootstrapOptions {
  /** `mesh.name` of the client's Dataplane. */
  nodeId: string;
  adsHost: string;
  adsPort: number;
  /** gRPC's bootstrap requires a locality, even an empty one. */
  locality: { region?: string; zone?: string; sub_zone?: string };
  /** When given, connecting registers this Dataplane, as for Envoy. */
  dataplane?: DataplaneResource;
  /** As for Envoy: the Dataplane's token, sent in node metadata. */
  token?: string;
  /** Where meshdesk writes the proxy's certificates for mesh mTLS (see grpc-certificate-files.ts). */
  certificates?: { mesh: string; files: GrpcCertificateFiles; refreshInterval?: string };
}

/** How often gRPC re-reads its certificate files: a rotation is picked up within this. */
export const GRPC_CERTIFICATE_REFRESH_INTERVAL = '10s';

/**
 * The bootstrap of gRPC's own xDS client (GRPC_XDS_BOOTSTRAP file, or grpc-js-xds's per-channel
 * option): plaintext to the ADS server, xDS v3. With `certificates`, it names the `file_watcher`
 * certificate providers (gRFC A29) that mesh mTLS clusters and server listeners refer to, under
 * Kuma's secret names, so it stays valid whether the mesh's mTLS is on or off; and the name an
 * xDS-enabled server asks for its listener by (gRFC A36).
 */
export function generateGrpcBootstrap(options: GrpcBootstrapOptions): ProtoJson {
  const entries = {
    ...(options.dataplane && { [DATAPLANE_METADATA_KEY]: dataplaneMetadata(options.dataplane) }),
    ...tokenMetadata(options.token),
  };
  const metadata = Object.keys(entries).length > 0 ? { metadata: entries } : {};
  return {
    xds_servers: [
      {
        // gRPC target syntax: an IPv6 literal needs brackets before the port.
        server_uri: `${options.adsHost.includes(':') ? `[${options.adsHost}]` : options.adsHost}:${options.adsPort}`,
        channel_creds: [{ type: 'insecure' }],
        server_features: ['xds_v3'],
      },
    ],
    node: { id: options.nodeId, locality: options.locality, ...metadata },
    server_listener_resource_name_template: GRPC_SERVER_LISTENER_TEMPLATE,
    ...(options.certificates && { certificate_providers: certificateProviders(options.certificates) }),
  };
}

function certificateProviders({ mesh, files, refreshInterval }: NonNullable<GrpcBootstrapOptions['certificates']>): ProtoJson {
  const refresh_interval = refreshInterval ?? GRPC_CERTIFICATE_REFRESH_INTERVAL;
  return {
    [identitySecretName(mesh)]: {
      plugin_name: 'file_watcher',
      config: { certificate_file: files.certificateFile, private_key_file: files.privateKeyFile, refresh_interval },
    },
    [meshCaSecretName(mesh)]: {
      plugin_name: 'file_watcher',
      config: { ca_certificate_file: files.caCertificateFile, refresh_interval },
    },
  };
}

function tokenMetadata(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { [DATAPLANE_TOKEN_METADATA_KEY]: token };
}

function nodeId(dataplane: DataplaneResource): string {
  return `${dataplane.meta.mesh}.${dataplane.meta.name}`;
}

/**
 * The Dataplane in Kuma's API shape, as the lifecycle reads it back from the node metadata, minus
 * the fields the store owns (and the `kri` it computes): a `version` baked into a bootstrap file would ask for optimistic
 * concurrency against a version long gone when the proxy restarts, and fail as a conflict.
 */
function dataplaneMetadata(dataplane: DataplaneResource): string {
  const { version: _version, creationTime: _created, modificationTime: _modified, kri: _kri, ...universal } = toKumaObject(dataplane);
  return JSON.stringify(universal);
}
