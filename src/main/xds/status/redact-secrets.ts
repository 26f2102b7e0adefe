import type { ProtoJson } from '../protocol/proto-json.js';

/** What Envoy's own config dump writes in place of a private key. */
const REDACTED = { inline_string: '[redacted]' };

/**
 * A Secret resource as it may be shown or stored outside the proxy's stream: its private key
 * replaced, as Envoy's `/config_dump` does. The certificate and CA stay (they are public); the
 * key goes only to the proxy it belongs to.
 */
export function redactSecret(secret: ProtoJson): ProtoJson {
  const tlsCertificate = secret.tls_certificate as ProtoJson | undefined;
  if (tlsCertificate?.private_key === undefined) return secret;
  return { ...secret, tls_certificate: { ...tlsCertificate, private_key: REDACTED } };
}
