/**
 * Orders strings by UTF-16 code units, as the store lists resources (SQLite's `ORDER BY name`).
 * For Kuma names (lower-case DNS labels: letters, digits, `-`, `.`) that is alphabetical order,
 * and unlike `localeCompare` it needs no ICU collator, whose first use costs a page 10–25 ms.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Resources by mesh, then name: the order the Resources and Policies lists show them in. */
export function byMeshThenName(a: { mesh?: string; name: string }, b: { mesh?: string; name: string }): number {
  return (a.mesh ?? '').localeCompare(b.mesh ?? '') || a.name.localeCompare(b.name);
}
