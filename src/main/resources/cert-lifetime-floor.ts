// meshdesk's rule beyond Kuma's Mesh validation: an identity certificate lifetime
// (`dpCert.rotation.expiration`) below one minute. Kuma only checks that it parses; at `1s` every
// proxy needs a new RSA key every 0.8 s, which keeps the machine's cores busy for as long as the mesh
// exists (test/kuma/known-differences.ts lists it).
import type { MeshSpec } from '../../shared/resources.js';
import { indexPath } from './field-path.js';
import { parseKumaDuration } from './kuma-duration.js';
import type { ViolationList } from './validation-error.js';

/**
 * One minute. A certificate is renewed after 4/5 of its lifetime and a gRPC proxy re-reads its
 * certificate files every 10 s (GRPC_CERTIFICATE_REFRESH_INTERVAL), so the last fifth must outlast
 * one re-read: 1 min leaves 12 s. It also bounds the work: one RSA-2048 key per proxy per 48 s.
 */
export const MIN_CERT_LIFETIME = '1m';
const MIN_CERT_LIFETIME_MS = 60_000;

export function checkCertLifetimeFloor(mtls: MeshSpec['mtls'], violations: ViolationList): void {
  (mtls?.backends ?? []).forEach((backend, index) => {
    const text = backend.dpCert?.rotation?.expiration;
    const lifetime = text === undefined ? undefined : parseKumaDuration(text);
    if (lifetime === undefined || lifetime >= MIN_CERT_LIFETIME_MS) return; // unset (Kuma's 24 h), or Kuma's own rule refuses it
    violations.add(
      `${indexPath('mtls.backends', index)}.dpCert.rotation.expiration`,
      `must be at least ${MIN_CERT_LIFETIME}, got "${text}": an identity certificate is renewed after 4/5 of its lifetime, ` +
        'and a shorter one costs every proxy a new RSA key that often, and leaves gRPC proxies (which re-read their certificate files every 10s) an expired one',
    );
  });
}
