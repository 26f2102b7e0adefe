// Two published snapshots compared resource by resource (keyed by type and name), field by field
// with microdiff: what a user wants to know is "which field of which cluster changed", not lines.
import diff from 'microdiff';
import type { SnapshotResourcesJson } from '../../../../shared/api-types.js';
import { xdsTypeOf } from '../../lib/format/xds.js';
import { formatPath } from './xds-config.js';

export interface FieldChange {
  kind: 'added' | 'removed' | 'changed';
  /** `virtual_hosts[0].routes[0].route.cluster` */
  path: string;
  oldValue?: unknown;
  value?: unknown;
}

export interface ResourceDiff {
  /** `cds/echo` */
  key: string;
  type: string;
  name: string;
  status: 'added' | 'removed' | 'changed';
  /** Field changes of a changed resource; the whole resource for an added or removed one. */
  changes: FieldChange[];
  resource: unknown;
}

type Indexed = Map<string, { type: string; name: string; resource: unknown }>;

function index(resources: SnapshotResourcesJson): Indexed {
  const byKey: Indexed = new Map();
  for (const [typeUrl, list] of Object.entries(resources)) {
    const type = xdsTypeOf(typeUrl);
    for (const { name, resource } of list) byKey.set(`${type}/${name}`, { type, name, resource });
  }
  return byKey;
}

/** Only what differs, sorted by type then name; identical resources are left out. */
export function diffSnapshots(from: SnapshotResourcesJson, to: SnapshotResourcesJson): ResourceDiff[] {
  const before = index(from);
  const after = index(to);
  const diffs: ResourceDiff[] = [];
  for (const [key, { type, name, resource }] of after) {
    const old = before.get(key);
    if (!old) {
      diffs.push({ key, type, name, status: 'added', changes: [], resource });
      continue;
    }
    const changes = diff(asObject(old.resource), asObject(resource)).map((change): FieldChange => {
      const path = formatPath(change.path);
      if (change.type === 'CREATE') return { kind: 'added', path, value: change.value };
      if (change.type === 'REMOVE') return { kind: 'removed', path, oldValue: change.oldValue };
      return { kind: 'changed', path, oldValue: change.oldValue, value: change.value };
    });
    if (changes.length > 0) diffs.push({ key, type, name, status: 'changed', changes, resource });
  }
  for (const [key, { type, name, resource }] of before) {
    if (!after.has(key)) diffs.push({ key, type, name, status: 'removed', changes: [], resource });
  }
  return diffs.sort((a, b) => a.key.localeCompare(b.key));
}

function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : { value };
}
