// How the permission matrix words its decisions: every state has an icon and a word, never colour alone.
import type { PermissionCell, PermissionDecision, PermissionPath, PermissionVerdict } from '../../../../shared/permission-types.js';

export type CellState = PermissionCell['decision'] | 'not-enforced';

export const DECISION_LABELS: Readonly<Record<CellState, { icon: string; label: string }>> = {
  allowed: { icon: '✓', label: 'allowed' },
  denied: { icon: '✕', label: 'denied' },
  'shadow-denied': { icon: '◐', label: 'shadow-denied' },
  mixed: { icon: '±', label: 'mixed' },
  'not-enforced': { icon: '○', label: 'not enforced' },
};

/** What a cell shows: its decision, or with mTLS off "not enforced" and what it will be once on. */
export function cellState(cell: PermissionCell, enforced: boolean): { state: CellState; whenOn?: PermissionDecision | 'mixed' } {
  if (enforced) return { state: cell.decision };
  const later = new Set(cell.paths.map((path) => (path.whenEnforced ?? path.verdict).decision));
  return { state: 'not-enforced', whenOn: later.size === 1 ? [...later][0]! : 'mixed' };
}

/** The policy item behind a verdict, `MeshTrafficPermission allow-web · spec.from[0]`, or none. */
export function describeOrigin(verdict: PermissionVerdict): string | undefined {
  return verdict.origin && `${verdict.origin.type} ${verdict.origin.name} · ${verdict.origin.item}`;
}

/** The distinct verdicts of a cell's paths (most cells have one), each with where it applies. */
export function distinctVerdicts(paths: readonly PermissionPath[], pick: (path: PermissionPath) => PermissionVerdict | undefined): { verdict: PermissionVerdict; at: string[] }[] {
  const byText = new Map<string, { verdict: PermissionVerdict; at: string[] }>();
  for (const path of paths) {
    const verdict = pick(path);
    if (!verdict) continue;
    const key = JSON.stringify(verdict);
    const where = `${path.dataplane} ← ${path.callers.join(', ')}`;
    const entry = byText.get(key);
    if (entry) entry.at.push(where);
    else byText.set(key, { verdict, at: [where] });
  }
  return [...byText.values()];
}
