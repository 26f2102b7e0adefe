import { enabledBuiltinBackend } from '../../shared/mesh-mtls.js';
import type { MeshResource } from '../../shared/resources.js';
import { parseKumaDuration } from '../resources/kuma-duration.js';

/** Kuma's default identity certificate lifetime (`dpCert.rotation.expiration`). */
export const DEFAULT_CERT_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** Kuma's mTLS modes: STRICT takes mTLS only; PERMISSIVE takes plaintext too (a migration aid). */
export type MtlsMode = 'STRICT' | 'PERMISSIVE';

/** What a mesh with mTLS on asks of the control plane, read once from its spec. */
export interface MeshMtls {
  mesh: string;
  /** The enabled backend's name: the CA is per mesh and backend. */
  backend: string;
  mode: MtlsMode;
  /** How long an identity certificate is valid. */
  certValidityMs: number;
}

/**
 * The mesh's mTLS, or undefined when it is off. Only the `builtin` CA is applied: a `provided`
 * backend is stored (Kuma validates it) but meshdesk has no CA for it, so the mesh stays plaintext
 * and `notAppliedFields` says so. Kuma's mode enum defaults to STRICT.
 */
export function meshMtls(mesh: MeshResource): MeshMtls | undefined {
  const backend = enabledBuiltinBackend(mesh.spec.mtls);
  if (!backend) return undefined;
  const expiration = parseKumaDuration(backend.dpCert?.rotation?.expiration ?? '');
  return {
    mesh: mesh.meta.name,
    backend: backend.name!,
    mode: backend.mode ?? 'STRICT',
    // Unset: Kuma's default (validation refuses less than a minute: resources/cert-lifetime-floor.ts).
    certValidityMs: expiration ?? DEFAULT_CERT_VALIDITY_MS,
  };
}
