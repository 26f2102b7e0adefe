// Whether a Mesh has mTLS on as meshdesk applies it: read by the core and, before a Mesh is applied, by the UI.
import type { CertificateAuthorityBackend, MeshSpec } from './resources.js';

/**
 * The enabled backend when it is a `builtin` CA, the only kind meshdesk applies (a `provided`
 * backend is stored, as Kuma validates it, but the mesh stays plaintext); undefined: mTLS is off.
 */
export function enabledBuiltinBackend(mtls: MeshSpec['mtls'] | undefined): CertificateAuthorityBackend | undefined {
  const backend = mtls?.backends?.find((candidate) => candidate.name === mtls.enabledBackend);
  return mtls?.enabledBackend && backend?.type === 'builtin' ? backend : undefined;
}
