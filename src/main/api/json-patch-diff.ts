// The JSON Patch (RFC 6902) from one configuration to another, as Kuma's `_config?include=diff`
// renders it (josephburnett/jd's RenderPatch): a changed value is `test` (old) + `remove` (old) +
// `add` (new), a removed one `test` + `remove`, an added one `add`. Objects are compared by key;
// arrays of equal length item by item, arrays of different lengths are replaced whole (jd aligns
// their items by a longest common subsequence, so its patch for those may be finer).

export interface JsonPatchOp {
  op: 'test' | 'remove' | 'add';
  path: string;
  value: unknown;
}

/** The ops turning `before` into `after`, in key order of each object (`before`'s keys, then `after`'s new ones). */
export function jsonPatchDiff(before: unknown, after: unknown): JsonPatchOp[] {
  const ops: JsonPatchOp[] = [];
  diffAt('', before, after, ops);
  return ops;
}

function diffAt(path: string, before: unknown, after: unknown, ops: JsonPatchOp[]): void {
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      const at = `${path}/${escapePointer(key)}`;
      if (!Object.hasOwn(after, key)) ops.push({ op: 'test', path: at, value: before[key] }, { op: 'remove', path: at, value: before[key] });
      else diffAt(at, before[key], after[key], ops);
    }
    for (const key of Object.keys(after)) {
      if (!Object.hasOwn(before, key)) ops.push({ op: 'add', path: `${path}/${escapePointer(key)}`, value: after[key] });
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, index) => diffAt(`${path}/${index}`, item, after[index], ops));
    return;
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  ops.push({ op: 'test', path, value: before }, { op: 'remove', path, value: before }, { op: 'add', path, value: after });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 6901: `~` as `~0`, `/` as `~1` (a type URL's slash). */
function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}
