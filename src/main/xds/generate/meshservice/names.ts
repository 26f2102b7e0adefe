// What Envoy calls a MeshService outbound's objects with Kuma 2.14's default (legacy) naming
// (pkg/core/resources/apis/core/destinationname, pkg/core/kri, pkg/core/resources/sni): the
// cluster, its endpoints and the virtual host by the legacy name, the route configuration and the
// listener's `kuma.io/unified-name` by the KRI, and the upstream SNI of mesh mTLS without MeshIdentity.
import type { Resource } from '../../../../shared/resources.js';
import { ZONE_TAG } from '../../../resources/computed-labels.js';
import { formatKri } from '../../../resources/kri.js';
import type { Section } from '../../../meshservice/sections.js';

const NAMESPACE_LABEL = 'k8s.kuma.io/namespace';
const DISPLAY_NAME_LABEL = 'kuma.io/display-name';

type Named = Pick<Resource<'MeshService'>, 'type' | 'meta'>;

/** The name the resource goes by in names: its display-name label, else its name. */
export function displayNameOf(resource: Pick<Resource, 'meta'>): string {
  return resource.meta.labels[DISPLAY_NAME_LABEL] ?? resource.meta.name;
}

/** `<mesh>_<display name>_<namespace>_<zone>_msvc_<port number>`; parts the resource has no label for stay empty. */
export function legacyMeshServiceName(resource: Named, port: number): string {
  const { meta } = resource;
  return [meta.mesh, displayNameOf(resource), meta.labels[NAMESPACE_LABEL] ?? '', meta.labels[ZONE_TAG] ?? '', 'msvc', String(port)].join('_');
}

/** The KRI of one section (port name, else number) of the resource. */
export function sectionKri(resource: Named, section: Section): string {
  return formatKri({
    type: resource.type,
    mesh: resource.meta.mesh,
    zone: resource.meta.labels[ZONE_TAG] ?? '',
    namespace: resource.meta.labels[NAMESPACE_LABEL] ?? '',
    name: displayNameOf(resource),
    sectionName: section.name,
  });
}

/** Kuma cuts each readable part of an SNI to this many characters and marks the cut with `x`. */
const SNI_PART_LIMIT = 62;

/**
 * The SNI a client sends to a MeshService port under mesh mTLS without MeshIdentity:
 * `a<fnv-1a 64 of "<name>;<mesh>;" in hex>.<name>.<port>.<mesh>.ms`. The hash keeps two
 * resources apart when cutting long names would make their readable parts equal.
 */
export function meshServiceSni(name: string, mesh: string, port: number): string {
  return `a${fnv1a64Hex(`${name};${mesh};`)}.${cut(name)}.${port}.${cut(mesh)}.ms`;
}

function cut(part: string): string {
  return part.length > SNI_PART_LIMIT ? `${part.slice(0, SNI_PART_LIMIT)}x` : part;
}

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = (1n << 64n) - 1n;

/** 64-bit FNV-1a over the UTF-8 bytes, as 16 lower-case hex digits (Go's %x of the sum's bytes). */
function fnv1a64Hex(text: string): string {
  let hash = FNV64_OFFSET;
  for (const byte of Buffer.from(text, 'utf8')) hash = ((hash ^ BigInt(byte)) * FNV64_PRIME) & MASK64;
  return hash.toString(16).padStart(16, '0');
}
