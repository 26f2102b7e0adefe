import type { Finding, FindingSeverity, MeshAnalysis } from '../../shared/analysis-types.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { ANALYZERS } from './analyzers.js';

const SEVERITY_ORDER: Record<FindingSeverity, number> = { error: 0, warning: 1, info: 2 };

/** Every analyzer over one mesh: findings worst first, then by code, then by resource. */
export function analyzeMesh(context: MeshContext): MeshAnalysis {
  const findings = ANALYZERS.flatMap((analyzer) => analyzer.analyze(context)).sort(compareFindings);
  for (const finding of findings) finding.proxies.sort();
  const counts: MeshAnalysis['counts'] = { error: 0, warning: 0, info: 0 };
  for (const finding of findings) counts[finding.severity]++;
  return { mesh: context.mesh.meta.name, findings, counts };
}

function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    compare(a.code, b.code) ||
    compare(`${a.location.type}/${a.location.name}/${a.location.field ?? ''}`, `${b.location.type}/${b.location.name}/${b.location.field ?? ''}`)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
