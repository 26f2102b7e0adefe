// TLS contexts of mesh mTLS, as Kuma writes them (pkg/xds/envoy/tls/v3/tls.go): Envoy reads its
// identity and its mesh's CA over SDS by Kuma's secret names; gRPC's xDS clients and servers read
// them from the certificate files their bootstrap names (gRFC A29), under the same instance names.
import type { Tags } from '../../../shared/resources.js';
import { spiffeId } from '../../mtls/mesh-ca.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { adsConfigSource } from './config-source.js';
import { DOWNSTREAM_TLS_CONTEXT_TYPE_URL, TLS_TRANSPORT_SOCKET, UPSTREAM_TLS_CONTEXT_TYPE_URL } from './extension-types.js';

/** The ALPN protocol a mesh client offers, by which a PERMISSIVE inbound tells mesh mTLS from an application's own TLS. */
export const KUMA_ALPN = 'kuma';
const SERVICE_TAG = 'kuma.io/service';

/** Kuma's secret names (pkg/xds/envoy/names): `identity_cert:secret:<mesh>` and `mesh_ca:secret:<mesh>`. */
export function identitySecretName(mesh: string): string {
  return `identity_cert:secret:${mesh}`;
}

export function meshCaSecretName(mesh: string): string {
  return `mesh_ca:secret:${mesh}`;
}

/** Where the certificates come from: Envoy's SDS over ADS, or gRPC's certificate provider instances. */
export type CertificateSource = 'sds' | 'certificate-provider';

/**
 * No `sanMatchers`: only the mesh CA is checked. gRPC servers refuse SAN matchers (gRFC A29:
 * "not supported on servers", C-core NACKs the listener); the mesh CA signs mesh identities only.
 */
function commonTlsContext(mesh: string, source: CertificateSource, sanMatchers: readonly ProtoJson[], alpn?: string): ProtoJson {
  if (source === 'certificate-provider') {
    // grpc-js-xds matches SANs with the older string matcher list (`match_subject_alt_names`) only.
    return {
      tls_certificate_provider_instance: { instance_name: identitySecretName(mesh) },
      validation_context: {
        ca_certificate_provider_instance: { instance_name: meshCaSecretName(mesh) },
        ...(sanMatchers.length > 0 && { match_subject_alt_names: [...sanMatchers] }),
      },
    };
  }
  return {
    ...(alpn && { alpn_protocols: [alpn] }),
    tls_certificate_sds_secret_configs: [{ name: identitySecretName(mesh), sds_config: adsConfigSource() }],
    combined_validation_context: {
      default_validation_context:
        sanMatchers.length > 0 ? { match_typed_subject_alt_names: sanMatchers.map((matcher) => ({ san_type: 'URI', matcher })) } : {},
      validation_context_sds_secret_config: { name: meshCaSecretName(mesh), sds_config: adsConfigSource() },
    },
  };
}

/**
 * A mesh cluster's transport socket (Kuma's ClientSideMTLSConfigurer): mTLS with the proxy's
 * identity, the server must present `spiffe://<mesh>/<service>`; Envoy also sends Kuma's SNI and ALPN.
 */
export function upstreamTlsTransportSocket(mesh: string, service: string, source: CertificateSource, tags: Tags = {}): ProtoJson {
  const common = commonTlsContext(mesh, source, [{ exact: spiffeId(mesh, service) }], KUMA_ALPN);
  return {
    name: TLS_TRANSPORT_SOCKET,
    typed_config: {
      '@type': UPSTREAM_TLS_CONTEXT_TYPE_URL,
      common_tls_context: common,
      ...(source === 'sds' && { sni: sniFromTags({ ...tags, [SERVICE_TAG]: service, mesh }) }),
    },
  };
}

/**
 * An Envoy cluster's mesh mTLS to a real resource (MeshService): the server must present one of
 * `spiffeIds` (its identities); the SNI names the resource and port.
 */
export function upstreamResourceTlsTransportSocket(mesh: string, spiffeIds: readonly string[], sni: string): ProtoJson {
  return {
    name: TLS_TRANSPORT_SOCKET,
    typed_config: {
      '@type': UPSTREAM_TLS_CONTEXT_TYPE_URL,
      common_tls_context: commonTlsContext(mesh, 'sds', spiffeIds.map((id) => ({ exact: id })), KUMA_ALPN),
      sni,
    },
  };
}

/**
 * An inbound's transport socket (Kuma's ServerSideMTLS): the client must present a certificate of
 * the mesh CA (Envoy also checks a URI SAN starting `spiffe://<mesh>/`; gRPC servers take no SAN
 * matcher); which services may call is RBAC's business.
 */
export function downstreamTlsTransportSocket(mesh: string, source: CertificateSource): ProtoJson {
  return {
    name: TLS_TRANSPORT_SOCKET,
    typed_config: {
      '@type': DOWNSTREAM_TLS_CONTEXT_TYPE_URL,
      common_tls_context: commonTlsContext(mesh, source, source === 'sds' ? [{ prefix: `${spiffeId(mesh)}/` }] : []),
      require_client_certificate: true,
    },
  };
}

/**
 * Kuma's legacy SNI (pkg/xds/envoy/tls/sni.go, SNIFromTags): the service, then its other tags
 * sorted by name in braces: `backend{mesh=default,version=v1}`.
 */
export function sniFromTags(tags: Tags): string {
  const service = tags[SERVICE_TAG] ?? '';
  const extra = Object.keys(tags)
    .filter((tag) => tag !== SERVICE_TAG)
    .sort()
    .map((tag) => `${tag}=${tags[tag]}`)
    .join(',');
  return extra === '' ? service : `${service}{${extra}}`;
}
