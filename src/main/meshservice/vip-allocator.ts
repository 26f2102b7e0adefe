// Kuma's VIP allocator (pkg/core/resources/apis/core/vip/allocator.go with its in-memory IPAM): each
// destination kind has a /8, addresses go out in order from the network address, and one given out
// (or found in use at start) is never given again until a restart, even after its resource is gone.
import type { DestinationType, MeshExternalServiceStatus, MeshMultiZoneServiceStatus, MeshServiceStatus } from '../../shared/meshservice-types.js';
import type { Resource } from '../../shared/resources.js';

export const VIP_CIDRS: Record<DestinationType, string> = {
  MeshService: '241.0.0.0/8',
  MeshExternalService: '242.0.0.0/8',
  MeshMultiZoneService: '243.0.0.0/8',
};

/** The VIPs a resource holds (MeshService and MeshMultiZoneService `status.vips`, MeshExternalService `status.vip`). */
export function vipsOf(resource: Pick<Resource, 'type' | 'status'>): string[] {
  if (resource.type === 'MeshExternalService') {
    const ip = (resource.status as MeshExternalServiceStatus | undefined)?.vip?.ip;
    return ip ? [ip] : [];
  }
  return ((resource.status as MeshServiceStatus | MeshMultiZoneServiceStatus | undefined)?.vips ?? []).map(({ ip }) => ip).filter(Boolean);
}

/** The status with the VIP written where the type keeps it. */
export function withVip<S extends object>(type: DestinationType, status: S | undefined, ip: string): S {
  return (type === 'MeshExternalService' ? { ...status, vip: { ip } } : { ...status, vips: [{ ip }] }) as S;
}

function toNumber(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

function toIp(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** One CIDR's addresses: taken ones are remembered, the next is the lowest never taken. */
class Ipam {
  readonly #first: number;
  readonly #last: number;
  readonly #taken = new Set<number>();
  #cursor: number;

  constructor(readonly cidr: string) {
    const [address, bits] = cidr.split('/');
    const size = 2 ** (32 - Number(bits));
    this.#first = toNumber(address!)!;
    this.#last = this.#first + size - 1;
    this.#cursor = this.#first;
  }

  /** Marks an address as used; one outside the CIDR is ignored (Kuma reserves and ignores the error). */
  reserve(ip: string): void {
    const value = toNumber(ip);
    if (value !== undefined && value >= this.#first && value <= this.#last) this.#taken.add(value);
  }

  allocate(): string {
    while (this.#taken.has(this.#cursor) && this.#cursor <= this.#last) this.#cursor++;
    if (this.#cursor > this.#last) throw new Error(`no free VIP left in ${this.cidr}`);
    this.#taken.add(this.#cursor);
    return toIp(this.#cursor);
  }
}

export class VipAllocator {
  readonly #ipams = new Map<DestinationType, Ipam>(
    (Object.entries(VIP_CIDRS) as [DestinationType, string][]).map(([type, cidr]) => [type, new Ipam(cidr)]),
  );

  /** What the store holds at start: none of it is given out again. */
  seed(resources: readonly Pick<Resource, 'type' | 'status'>[]): void {
    for (const resource of resources) for (const ip of vipsOf(resource)) this.#ipams.get(resource.type as DestinationType)?.reserve(ip);
  }

  allocate(type: DestinationType): string {
    return this.#ipams.get(type)!.allocate();
  }
}
