// What meshdesk's mesh analysis finds (GET /meshes/{mesh}/_analysis, `meshdesk analyze`): types only,
// shared by the core, the renderer and the CLI.

export type FindingSeverity = 'error' | 'warning' | 'info';

/** The resource a finding is about, and where in it (`spec.to[0].rules[1].matches[0]`). */
export interface FindingLocation {
  type: string;
  mesh: string;
  name: string;
  /** A path in the resource as `_rules` origins name items; absent when the finding is about the whole resource. */
  field?: string;
}

export interface Finding {
  /** Stable: `MD0002`. Listed with an example and its fix in docs/analysis.md. */
  code: string;
  severity: FindingSeverity;
  /** What will not work, in Kuma's own terms, naming the resources involved. */
  message: string;
  location: FindingLocation;
  /** The other resources that explain it (the policy that wins, the route that matches first). */
  related: FindingLocation[];
  /** Proxy ids (`mesh.name`) it concerns; empty when it concerns none yet (no Dataplane matches). */
  proxies: string[];
  /** What to change. */
  fix: string;
}

export interface MeshAnalysis {
  mesh: string;
  findings: Finding[];
  /** By severity, for a badge. */
  counts: Record<FindingSeverity, number>;
}
