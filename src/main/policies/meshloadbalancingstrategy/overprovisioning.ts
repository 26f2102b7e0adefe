/** Envoy's overprovisioning_factor is a UInt32Value. */
const UINT32_MAX = 0xffff_ffff;

/** Kuma's overprovisioningFactor for a failover threshold: uint32(100 / threshold) · 100 (99 → 100, 50 → 200). */
export function overprovisioningFactorOf(percentage: number): number {
  return Math.trunc(100 / percentage) * 100;
}

/**
 * A threshold so small that its factor passes a uint32 (below about 0.0000024 %): Kuma takes it and
 * Go's conversion wraps it; Envoy could not be sent it, so it is refused, naming the field.
 */
export function overprovisioningProblem(percentage: number): string | undefined {
  if (overprovisioningFactorOf(percentage) <= UINT32_MAX) return undefined;
  return `must be servable: Envoy's ClusterLoadAssignment.Policy.overprovisioning_factor (100 / percentage, times 100) must be at most ${UINT32_MAX} (a uint32)`;
}
