// The cases whose Kuma mesh has builtin mTLS, which the shared meshdesk.yaml inputs leave off (they
// predate meshdesk's mTLS): each case's notes say so. The comparison turns the mesh's mTLS on for
// them, so TLS contexts and SDS secrets are compared with Kuma's.
import type { MeshSpec } from '../../../src/shared/resources.js';
import type { ProxyIdentity } from '../../../src/main/mtls/proxy-identities.js';
import type { PolicyResource } from '../../../src/main/policies/core/policy.js';

/** Case id → the Kuma mesh's mTLS (Kuma's tests use a builtin backend, mode STRICT by default). */
export const KUMA_MESH_MTLS: Readonly<Record<string, NonNullable<MeshSpec['mtls']>>> = {
  // "Kuma's test mesh has mTLS (STRICT), so every inbound has a DownstreamTlsContext"
  'inbound-proxy-03': builtin(),
  // "Mesh 'demo' has builtin mTLS: TLS contexts, SDS secrets and RBAC"
  'profile-source-01': builtin(),
  // "The mesh has builtin mTLS, MeshServices Exclusive, an allow-all MeshTrafficPermission…"
  'sidecars-no-policies': builtin(),
  // The same e2e mesh (envoyconfig, ca-1 enabled), with a MeshTimeout.
  'sidecars-meshtimeout-outbound': builtin(),
};

/**
 * Case id → the MeshTrafficPermissions of the case's Kuma mesh: the e2e mesh has "an allow-all
 * MeshTrafficPermission" (Kuma's allow-all: every caller of the mesh, to every proxy).
 */
export const KUMA_MESH_PERMISSIONS: Readonly<Record<string, readonly PolicyResource[]>> = {
  'sidecars-no-policies': [allowAll('envoyconfig')],
  'sidecars-meshtimeout-outbound': [allowAll('envoyconfig')],
};

function allowAll(mesh: string): PolicyResource {
  const time = '2024-01-01T00:00:00.000Z';
  return {
    type: 'MeshTrafficPermission',
    meta: { mesh, name: 'allow-all', version: 1, creationTime: time, modificationTime: time, labels: {} },
    spec: { targetRef: { kind: 'Mesh' }, from: [{ targetRef: { kind: 'Mesh' }, default: { action: 'Allow' } }] },
  };
}

function builtin(): NonNullable<MeshSpec['mtls']> {
  return { enabledBackend: 'ca-1', backends: [{ name: 'ca-1', type: 'builtin' }] };
}

/** The identity a case's proxy gets: Kuma's goldens redact certificates and keys to `CERT`, `KEY` and `CA`. */
export function redactedIdentity(mesh: string): ProxyIdentity {
  const time = '2024-01-01T00:00:00.000Z';
  return { mesh, certChain: 'CERT', key: 'KEY', caCert: 'CA', serial: '01', uris: [], notBefore: time, notAfter: time, rotateAt: time };
}
