// Which fields of a stored Mesh or Dataplane meshdesk keeps but does not act on: Kuma accepts them, so
// meshdesk accepts and stores them too, and says so instead of silently ignoring them. Shared by the
// API (`GET …/_not-applied`) and the Resources editor. Whoever makes the generator act on a field
// removes it here.
import { SERVICE_TAG, type ResourceType } from './resources.js';

/** Mesh spec fields: meshdesk has no policies or backends yet, so none of them is applied (mTLS aside, below). */
const MESH_FIELDS = [
  'tracing',
  'logging',
  'metrics',
  'networking',
  'routing',
  'constraints',
  'skipCreatingInitialPolicies',
  'meshServices',
];

/** Dataplane fields outside `networking.inbound`/`outbound` that no generator reads. */
const DATAPLANE_FIELDS = ['metrics', 'probes'];
const NETWORKING_FIELDS = ['gateway', 'transparentProxying', 'listeners'];
const INBOUND_FIELDS = ['name', 'protocol', 'state', 'health', 'serviceProbe'];

type Fields = Record<string, unknown>;

/**
 * The field paths (`networking.inbound[0].serviceProbe`) present in `spec` that meshdesk stores but
 * does not apply. `spec` is a spec or the flat Kuma object: meta fields are not looked at.
 * An inbound without a `kuma.io/service` tag is listed whole: nothing is generated for it yet.
 */
export function notAppliedFields(type: ResourceType, spec: object): string[] {
  const resource = spec as Fields;
  if (type === 'Mesh') return [...notAppliedMtls(asFields(resource.mtls)), ...MESH_FIELDS.filter((field) => isSet(resource[field]))];
  // A policy field a proxy cannot apply is reported on that proxy, where it depends on the proxy.
  if (type !== 'Dataplane') return [];
  const found = DATAPLANE_FIELDS.filter((field) => isSet(resource[field]));
  const networking = asFields(resource.networking);
  found.push(...NETWORKING_FIELDS.filter((field) => isSet(networking[field])).map((field) => `networking.${field}`));
  asList(networking.inbound).forEach((inbound, index) => {
    const path = `networking.inbound[${index}]`;
    if (asFields(inbound.tags)[SERVICE_TAG] === undefined) found.push(path);
    else found.push(...INBOUND_FIELDS.filter((field) => isSet(inbound[field])).map((field) => `${path}.${field}`));
  });
  asList(networking.outbound).forEach((outbound, index) => {
    if (isSet(outbound.backendRef) && !appliesBackendRef(asFields(outbound.backendRef), asFields(networking.transparentProxying))) {
      found.push(`networking.outbound[${index}].backendRef`);
    }
  });
  return found;
}

/**
 * A `backendRef` to a MeshService is generated (a MeshService missing or without the port makes no
 * outbound, as in Kuma); MeshExternalService and MeshMultiZoneService ones are not yet. Under
 * transparent proxy Kuma ignores `networking.outbound`, and so does meshdesk.
 */
function appliesBackendRef(backendRef: Fields, transparentProxying: Fields): boolean {
  const redirects = [transparentProxying.redirectPortInbound, transparentProxying.redirectPortOutbound];
  return backendRef.kind === 'MeshService' && !redirects.some((port) => isSet(port) && port !== 0);
}

/**
 * Mesh mTLS is applied with the builtin CA. A `provided` backend enabled is not (meshdesk has no CA
 * for it, the mesh stays plaintext); of a builtin one, its CA parameters (`conf`: meshdesk's CA is
 * always Kuma's default RSA-2048 for 10 years), `rootChain` and `dpCert.requestTimeout` are not.
 */
function notAppliedMtls(mtls: Fields): string[] {
  if (!isSet(mtls.enabledBackend)) return [];
  const backends = asList(mtls.backends);
  const index = backends.findIndex((backend) => backend.name === mtls.enabledBackend);
  const backend = backends[index];
  if (backend?.type !== 'builtin') return ['mtls'];
  const path = `mtls.backends[${index}]`;
  return [
    ...(isSet(backend.conf) ? [`${path}.conf`] : []),
    ...(isSet(backend.rootChain) ? [`${path}.rootChain`] : []),
    ...(isSet(asFields(backend.dpCert).requestTimeout) ? [`${path}.dpCert.requestTimeout`] : []),
  ];
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function asFields(value: unknown): Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {};
}

function asList(value: unknown): Fields[] {
  return Array.isArray(value) ? value.map(asFields) : [];
}
