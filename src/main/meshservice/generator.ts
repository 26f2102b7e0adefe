// Kuma's universal MeshService generator (pkg/core/resources/apis/meshservice/generate/generator.go,
// serviceTagMeshServicesForDataplane and generate), as a pure function: from a mesh's Dataplanes and
// MeshServices, the writes that bring the generated MeshServices in line. controller.ts runs it.
import {
  DELETION_GRACE_PERIOD_LABEL,
  DISPLAY_NAME_LABEL,
  ENV_LABEL,
  MANAGED_BY_LABEL,
  MESH_LABEL,
  MESH_SERVICE_GENERATOR,
  type MeshServicePort,
  type MeshServiceSpec,
} from '../../shared/meshservice-types.js';
import { SERVICE_TAG, PROTOCOL_TAG, type DataplaneResource, type Resource, type ResourceInput, type ResourceKey } from '../../shared/resources.js';
import { KUMA_ORIGIN_LABEL, ZONE_TAG } from '../resources/computed-labels.js';
import { dns1035LabelProblems } from '../resources/dns-1035-label.js';
import { parseProtocol } from '../resources/kuma-rules.js';

export type MeshServiceResource = Resource<'MeshService'>;

export interface GeneratorInput {
  mesh: string;
  /** The control plane's zone (`kuma.io/zone` of what it generates). */
  zone: string;
  /** False for a mesh in mode Disabled: its generated MeshServices go at once. */
  enabled: boolean;
  dataplanes: readonly DataplaneResource[];
  meshServices: readonly MeshServiceResource[];
  now: Date;
  /** Kuma's `meshService.deletionGracePeriod`. */
  deletionGracePeriodMs: number;
}

export type GeneratorWrite =
  | { kind: 'create'; input: ResourceInput<'MeshService'>; reason: string }
  | { kind: 'update'; input: ResourceInput<'MeshService'>; reason: string }
  | { kind: 'delete'; key: ResourceKey; version: number; reason: string };

export interface GeneratorResult {
  writes: GeneratorWrite[];
  /** Dataplanes whose ports disagree with the MeshService they would make, per MeshService (Kuma logs them). */
  conflicts: Map<string, string[]>;
  /** When the earliest grace period still running ends (ms since the epoch), for the next pass. */
  nextDeadline: number | undefined;
}

/** Kuma's IsLocalMeshService: what this zone made (no origin, or `zone`), not what a federation synced in. */
export function isLocalMeshService(meshService: Pick<Resource, 'meta'>): boolean {
  const origin = meshService.meta.labels[KUMA_ORIGIN_LABEL];
  return origin === undefined || origin === 'zone';
}

export function isGenerated(meshService: Pick<Resource, 'meta'>): boolean {
  return isLocalMeshService(meshService) && meshService.meta.labels[MANAGED_BY_LABEL] === MESH_SERVICE_GENERATOR;
}

/** The MeshServices one Dataplane makes: one per `kuma.io/service` value that is a DNS-1035 label, a port per inbound. */
export function meshServicesOfDataplane(dataplane: DataplaneResource): Map<string, MeshServicePort[]> {
  const portsByService = new Map<string, MeshServicePort[]>();
  for (const inbound of dataplane.spec.networking.inbound ?? []) {
    const service = inbound.tags?.[SERVICE_TAG] ?? '';
    // Kuma skips (and only logs) a value that cannot name a MeshService; a tag-less inbound has none.
    if (dns1035LabelProblems(service).length > 0) continue;
    const protocol = inbound.protocol || inbound.tags?.[PROTOCOL_TAG] || '';
    const port: MeshServicePort = {
      name: inbound.name || String(inbound.port),
      port: inbound.port,
      targetPort: inbound.port,
      appProtocol: (protocol !== '' && parseProtocol(protocol)) || 'tcp',
    };
    portsByService.set(service, [...(portsByService.get(service) ?? []), port]);
  }
  return portsByService;
}

function generatedSpec(service: string, ports: MeshServicePort[]): MeshServiceSpec {
  return { selector: { dataplaneTags: { [SERVICE_TAG]: service } }, ports };
}

function samePorts(a: readonly MeshServicePort[] | undefined, b: readonly MeshServicePort[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return (
    left.length === right.length &&
    left.every((port, index) => {
      const other = right[index]!;
      return port.name === other.name && port.port === other.port && port.targetPort === other.targetPort && (port.appProtocol ?? '') === (other.appProtocol ?? '');
    })
  );
}

/**
 * Kuma's checkMeshServicesConsistency: the ports every contributing Dataplane must agree on. The
 * existing MeshService's ports win while some Dataplane still makes them; else the first Dataplane's.
 */
function choosePorts(existing: MeshServicePort[] | undefined, made: readonly { dataplane: string; ports: MeshServicePort[] }[]): { ports: MeshServicePort[]; conflicting: string[] } | undefined {
  if (made.length === 0) return undefined;
  const pick = (ports: MeshServicePort[]) => ({ ports, conflicting: made.filter((each) => !samePorts(ports, each.ports)).map((each) => each.dataplane) });
  if (existing !== undefined) {
    const kept = pick(existing);
    if (kept.conflicting.length < made.length) return kept;
  }
  return pick(made[0]!.ports);
}

function desiredLabels(mesh: string, name: string, zone: string): Record<string, string> {
  return {
    [MESH_LABEL]: mesh,
    [DISPLAY_NAME_LABEL]: name,
    [MANAGED_BY_LABEL]: MESH_SERVICE_GENERATOR,
    [ENV_LABEL]: 'universal',
    [ZONE_TAG]: zone,
    [KUMA_ORIGIN_LABEL]: 'zone',
  };
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

/** Dataplanes by creation time, then name (Kuma's SortDataplanes): the first one's ports win a disagreement. */
function byCreation(dataplanes: readonly DataplaneResource[]): DataplaneResource[] {
  return [...dataplanes].sort(
    (a, b) => compare(a.meta.creationTime, b.meta.creationTime) || compare(a.meta.name, b.meta.name),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function generateMeshServices(input: GeneratorInput): GeneratorResult {
  const { mesh, zone } = input;
  const writes: GeneratorWrite[] = [];
  const conflicts = new Map<string, string[]>();
  const generated = input.meshServices.filter(isGenerated);
  if (!input.enabled) {
    for (const meshService of generated) {
      writes.push({ kind: 'delete', key: { type: 'MeshService', mesh, name: meshService.meta.name }, version: meshService.meta.version, reason: 'mesh services disabled' });
    }
    return { writes, conflicts, nextDeadline: undefined };
  }
  const madeByName = new Map<string, { dataplane: string; ports: MeshServicePort[] }[]>();
  for (const dataplane of byCreation(input.dataplanes)) {
    for (const [name, ports] of meshServicesOfDataplane(dataplane)) {
      madeByName.set(name, [...(madeByName.get(name) ?? []), { dataplane: dataplane.meta.name, ports }]);
    }
  }
  // Any MeshService of that name, generated or not, is the one the name stands for: a hand-made one is never touched.
  const existingNames = new Set(input.meshServices.map((meshService) => meshService.meta.name));
  let nextDeadline: number | undefined;
  for (const meshService of generated) {
    const { name, labels, version } = meshService.meta;
    const chosen = choosePorts(meshService.spec.ports, madeByName.get(name) ?? []);
    if (chosen !== undefined && chosen.conflicting.length > 0) conflicts.set(name, chosen.conflicting);
    const gracePeriodStartedAt = labels[DELETION_GRACE_PERIOD_LABEL];
    if (chosen !== undefined) {
      const { [DELETION_GRACE_PERIOD_LABEL]: _started, ...kept } = labels;
      const desired = { ...kept, ...desiredLabels(mesh, name, zone) };
      const specDiffers = !samePorts(meshService.spec.ports, chosen.ports);
      const reasons = [
        ...(specDiffers ? ['spec changed'] : []),
        ...(gracePeriodStartedAt !== undefined ? ['no longer scheduled for deletion'] : []),
        ...(!sameLabels(kept, desired) ? ['labels changed'] : []),
      ];
      if (reasons.length === 0) continue;
      // The generator's spec replaces the stored one (state and identities are the status updater's to set again).
      writes.push({
        kind: 'update',
        input: { type: 'MeshService', mesh, name, labels: desired, spec: { ...meshService.spec, ...generatedSpec(name, chosen.ports) }, version },
        reason: reasons.join(', '),
      });
      continue;
    }
    const startedAt = gracePeriodStartedAt === undefined ? Number.NaN : Date.parse(gracePeriodStartedAt);
    if (!Number.isNaN(startedAt)) {
      const deadline = startedAt + input.deletionGracePeriodMs;
      if (input.now.getTime() > deadline) {
        writes.push({ kind: 'delete', key: { type: 'MeshService', mesh, name }, version, reason: 'deletion grace period over' });
      } else {
        nextDeadline = Math.min(nextDeadline ?? Infinity, deadline);
      }
      continue;
    }
    // No Dataplane makes it any more (or its label does not parse): the grace period starts now.
    writes.push({
      kind: 'update',
      input: { type: 'MeshService', mesh, name, labels: { ...labels, [DELETION_GRACE_PERIOD_LABEL]: input.now.toISOString() }, spec: meshService.spec, version },
      reason: 'deletion grace period started',
    });
    nextDeadline = Math.min(nextDeadline ?? Infinity, input.now.getTime() + input.deletionGracePeriodMs);
  }
  for (const [name, made] of madeByName) {
    if (existingNames.has(name)) continue;
    const chosen = choosePorts(undefined, made)!;
    if (chosen.conflicting.length > 0) conflicts.set(name, chosen.conflicting);
    writes.push({ kind: 'create', input: { type: 'MeshService', mesh, name, labels: desiredLabels(mesh, name, zone), spec: generatedSpec(name, chosen.ports) }, reason: 'created' });
  }
  return { writes, conflicts, nextDeadline };
}
