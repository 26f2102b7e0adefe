import { SECRET_TYPE_URL } from '../protocol/type-urls.js';
import type { ResourceGenerator } from './generator.js';
import { ResourceSet } from './resources.js';
import { identitySecretName, meshCaSecretName } from './tls-contexts.js';

/**
 * An Envoy proxy's SDS secrets (Kuma's secrets generator): its identity certificate and key, and
 * its mesh's CA certificate, inline, under Kuma's names. Nothing without mTLS; gRPC proxies read
 * the same from files instead (see grpc-certificate-files.ts).
 */
export const secretsGenerator: ResourceGenerator = {
  name: 'secrets',
  generate(_context, proxy) {
    const resources = new ResourceSet();
    const { identity } = proxy;
    if (identity === undefined || proxy.kind !== 'envoy') return resources.toResources();
    const identityName = identitySecretName(identity.mesh);
    const caName = meshCaSecretName(identity.mesh);
    resources
      .add(SECRET_TYPE_URL, identityName, {
        name: identityName,
        tls_certificate: { certificate_chain: inlineBytes(identity.certChain), private_key: inlineBytes(identity.key) },
      })
      .add(SECRET_TYPE_URL, caName, { name: caName, validation_context: { trusted_ca: inlineBytes(identity.caCert) } });
    return resources.toResources();
  },
};

/** A DataSource with bytes: proto3 JSON writes bytes as base64. */
function inlineBytes(pem: string) {
  return { inline_bytes: Buffer.from(pem).toString('base64') };
}
