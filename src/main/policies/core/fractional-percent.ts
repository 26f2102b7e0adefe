import type { ProtoJson } from '../../xds/protocol/proto-json.js';

/**
 * Kuma's ConvertPercentage: a percent as Envoy's FractionalPercent, in the coarsest denominator
 * that holds it exactly (computed in float64 as Kuma does: 33.3 → 333000/MILLION, 62.9 → 6290/TEN_THOUSAND).
 */
export function fractionalPercent(percent: number): ProtoJson {
  if (Number.isInteger(percent)) return { numerator: percent, denominator: 'HUNDRED' };
  const hundredTimes = 100 * percent;
  if (Number.isInteger(hundredTimes)) return { numerator: hundredTimes, denominator: 'TEN_THOUSAND' };
  return { numerator: Math.round(10_000 * percent), denominator: 'MILLION' };
}
