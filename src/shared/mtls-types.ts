// What the API tells about mesh mTLS (GET /meshes/{mesh}/_mtls, GET …/dataplanes/{name}/_identity):
// public halves only. No private key is ever part of these shapes.

export interface MeshMtlsView {
  mesh: string;
  /** `null` when the mesh has mTLS off (or an enabled backend meshdesk does not apply). */
  mtls: {
    backend: string;
    mode: 'STRICT' | 'PERMISSIVE';
    /** How long an identity certificate lives, in milliseconds; it is renewed after 4/5 of it. */
    certValidityMs: number;
    ca: MeshCaView;
  } | null;
}

export interface MeshCaView {
  /** SHA-256 of the CA certificate, `AA:BB:…`. */
  fingerprint: string;
  subject: string;
  notBefore: string;
  notAfter: string;
}

/** A proxy's identity certificate, as issued now. */
export interface ProxyIdentityView {
  mesh: string;
  /** SPIFFE and kuma:// URI SANs. */
  uris: string[];
  serial: string;
  notBefore: string;
  notAfter: string;
  /** When meshdesk issues the next one (4/5 of the lifetime), unless its services or the mesh's mTLS change first. */
  rotateAt: string;
  /** How many times it was re-issued while this proxy was connected. */
  rotations: number;
}
