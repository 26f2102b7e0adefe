import type { DataplaneSpec } from '../../../shared/resources.js';

/**
 * Envoy's admin port for a Dataplane that sets none (`networking.admin.port`). Every local Envoy
 * needs its own: two on 9901 cannot both start. 9901 itself is left to users who choose it.
 */
export const ADMIN_PORT_RANGE = { first: 9902, last: 10901 } as const;

/** What the rule reads of a Dataplane: its key, its age and the ports it uses. */
export interface KnownDataplane {
  mesh: string;
  name: string;
  /** ISO time; a Dataplane not stored yet counts as the newest. */
  creationTime?: string;
  networking: DataplaneSpec['networking'];
}

/**
 * The default admin port of `dataplane`, stable and unique among the `known` Dataplanes:
 * - each Dataplane starts from its own slot in the range, a hash of `mesh.name` (so the port does
 *   not depend on which other Dataplanes exist, as long as none claims that slot first);
 * - from there it takes the first port that no known Dataplane uses: no explicit admin port, no
 *   inbound port, service port or outbound port, and no default admin port of an older Dataplane
 *   (oldest first, so a newer Dataplane never moves an older one's port);
 * - the range wraps around.
 * A Dataplane with `networking.admin.port` keeps it.
 */
export function adminPortOf(dataplane: KnownDataplane, known: readonly KnownDataplane[]): number {
  const explicit = dataplane.networking.admin?.port;
  if (explicit !== undefined) return explicit;
  const key = keyOf(dataplane);
  const stored = known.find((each) => keyOf(each) === key);
  const self = { ...dataplane, creationTime: stored?.creationTime ?? dataplane.creationTime };
  const others = known.filter((each) => keyOf(each) !== key);

  // Every port any of them uses, its own included: the same set from every Dataplane's point of view.
  const taken = new Set<number>();
  for (const each of [...others, self]) for (const port of usedPorts(each)) taken.add(port);
  // Older Dataplanes without an admin port take their defaults first, in age order.
  for (const older of others.filter((each) => each.networking.admin?.port === undefined && isOlder(each, self)).sort(byAge)) {
    taken.add(firstFree(older, taken));
  }
  return firstFree(self, taken);
}

const RANGE_SIZE = ADMIN_PORT_RANGE.last - ADMIN_PORT_RANGE.first + 1;

function firstFree(dataplane: KnownDataplane, taken: ReadonlySet<number>): number {
  const start = fnv1a(keyOf(dataplane)) % RANGE_SIZE;
  for (let offset = 0; offset < RANGE_SIZE; offset++) {
    const port = ADMIN_PORT_RANGE.first + ((start + offset) % RANGE_SIZE);
    if (!taken.has(port)) return port;
  }
  // A thousand local Envoys: share the slot rather than fail; the user can set networking.admin.port.
  return ADMIN_PORT_RANGE.first + start;
}

function usedPorts({ networking }: KnownDataplane): number[] {
  return [
    ...(networking.admin?.port === undefined ? [] : [networking.admin.port]),
    ...(networking.inbound ?? []).flatMap((inbound) => [inbound.port, ...(inbound.servicePort === undefined ? [] : [inbound.servicePort])]),
    ...(networking.outbound ?? []).map((outbound) => outbound.port),
  ];
}

/** Creation time, then key: a total order, so the same Dataplanes always give the same ports. */
function byAge(a: KnownDataplane, b: KnownDataplane): number {
  return (a.creationTime ?? '\uffff').localeCompare(b.creationTime ?? '\uffff') || keyOf(a).localeCompare(keyOf(b));
}

function isOlder(a: KnownDataplane, than: KnownDataplane): boolean {
  return byAge(a, than) < 0;
}

function keyOf({ mesh, name }: KnownDataplane): string {
  return `${mesh}.${name}`;
}

/** 32-bit FNV-1a: a small, fixed hash, the same on every platform and version. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
