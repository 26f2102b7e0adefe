import type { DataplaneResource, MeshResource } from '../../shared/resources.js';
import { SERVICE_TAG, WORKLOAD_LABEL } from '../../shared/resources.js';
import type { ProxyKind } from '../../shared/proxy-kind.js';
import { identityUris, issueIdentityCert, type MultiValueTags } from './mesh-ca.js';
import { caDigest, type MeshCaStore } from './mesh-ca-store.js';
import { meshMtls } from './mesh-mtls.js';

/** Kuma renews an identity after 4/5 of its lifetime (pkg/xds/secrets, `ExpiringSoon`). */
const RENEW_AT_FRACTION = 4 / 5;

/** A proxy's mTLS identity: what its SDS secrets (Envoy) or certificate files (gRPC) hold. */
export interface ProxyIdentity {
  mesh: string;
  /** PEM: the identity certificate, its private key, and the mesh CA's certificate (never its key). */
  certChain: string;
  key: string;
  caCert: string;
  /** The identity certificate's serial number, hex; a new one on every issue. */
  serial: string;
  uris: readonly string[];
  notBefore: string;
  notAfter: string;
  /** When it will be replaced (4/5 of its lifetime), unless the proxy's services or the mesh's mTLS change first. */
  rotateAt: string;
}

/** What may be shown of an identity: the public half. */
export type ProxyIdentityStatus = Omit<ProxyIdentity, 'certChain' | 'key' | 'caCert'> & { rotations: number };

/** The proxy an identity is for. */
export interface IdentityHolder {
  /** Node id, `mesh.name`. */
  id: string;
  kind: ProxyKind;
  dataplane: DataplaneResource;
}

export interface ProxyIdentitiesOptions {
  caStore: Pick<MeshCaStore, 'get'>;
  now?: () => Date;
  /** Told every new identity, before any configuration using it is published (gRPC's certificate files). */
  onIssued?: (proxy: IdentityHolder, identity: ProxyIdentity) => void;
}

interface Cached {
  /** Everything the certificate depends on: the CA, the URIs and the lifetime. */
  inputs: string;
  identity: ProxyIdentity;
  rotateAtMs: number;
  rotations: number;
}

/**
 * Issues and caches each proxy's identity certificate (Kuma's secrets.GetForDataPlane): issued
 * from the mesh CA on first use, re-issued after 4/5 of its lifetime, when the proxy's services or
 * tags change, or when the mesh's CA or certificate lifetime changes; forgotten when mTLS goes off.
 */
export class ProxyIdentities {
  readonly #caStore: Pick<MeshCaStore, 'get'>;
  readonly #now: () => Date;
  readonly #onIssued: ProxyIdentitiesOptions['onIssued'];
  readonly #cached = new Map<string, Cached>();

  constructor(options: ProxyIdentitiesOptions) {
    this.#caStore = options.caStore;
    this.#now = options.now ?? (() => new Date());
    this.#onIssued = options.onIssued;
  }

  /** The proxy's identity in its mesh now, or undefined when the mesh has no mTLS. */
  async identityFor(mesh: MeshResource, proxy: IdentityHolder): Promise<ProxyIdentity | undefined> {
    const { id: proxyId, dataplane } = proxy;
    const mtls = meshMtls(mesh);
    if (!mtls) {
      this.#cached.delete(proxyId);
      return undefined;
    }
    const ca = this.#caStore.get(mtls.mesh, mtls.backend);
    const uris = identityUris(mtls.mesh, identityTags(dataplane));
    const inputs = `${caDigest(ca)}\n${mtls.certValidityMs}\n${uris.join('\n')}`;
    const now = this.#now();
    const cached = this.#cached.get(proxyId);
    if (cached?.inputs === inputs && now.getTime() < cached.rotateAtMs) return cached.identity;

    const issued = await issueIdentityCert(ca, uris, mtls.certValidityMs, now);
    const notBefore = new Date(issued.parsed.validFrom);
    const notAfter = new Date(issued.parsed.validTo);
    // Kuma counts the lifetime from when it generated the certificate, not from its back-dated start.
    const rotateAtMs = now.getTime() + (notAfter.getTime() - now.getTime()) * RENEW_AT_FRACTION;
    const identity: ProxyIdentity = {
      mesh: mtls.mesh,
      certChain: issued.cert,
      key: issued.key,
      caCert: ca.cert,
      serial: issued.parsed.serialNumber,
      uris,
      notBefore: notBefore.toISOString(),
      notAfter: notAfter.toISOString(),
      rotateAt: new Date(rotateAtMs).toISOString(),
    };
    this.#onIssued?.(proxy, identity);
    this.#cached.set(proxyId, { inputs, identity, rotateAtMs, rotations: cached ? cached.rotations + 1 : 0 });
    return identity;
  }

  /** The public half of the proxy's identity, or undefined when it has none. */
  status(proxyId: string): ProxyIdentityStatus | undefined {
    const cached = this.#cached.get(proxyId);
    if (!cached) return undefined;
    const { certChain: _chain, key: _key, caCert: _ca, ...shown } = cached.identity;
    return { ...shown, rotations: cached.rotations };
  }

  forget(proxyId: string): void {
    this.#cached.delete(proxyId);
  }
}

/**
 * The tags an identity certifies (Kuma's identity_tags.go): every tag of every tagged inbound.
 * Without one, Kuma takes the `kuma.io/workload` label as the service; meshdesk then falls back
 * to the Dataplane's name, so that a client-only Dataplane (outbounds only) can still call over mTLS.
 */
export function identityTags(dataplane: DataplaneResource): MultiValueTags {
  const tags = new Map<string, Set<string>>();
  for (const inbound of dataplane.spec.networking.inbound ?? []) {
    if (inbound.tags?.[SERVICE_TAG] === undefined) continue;
    for (const [tag, value] of Object.entries(inbound.tags)) {
      if (!tags.has(tag)) tags.set(tag, new Set());
      tags.get(tag)!.add(value);
    }
  }
  if (tags.size === 0) tags.set(SERVICE_TAG, new Set([dataplane.meta.labels?.[WORKLOAD_LABEL] ?? dataplane.meta.name]));
  return tags;
}
