/**
 * RFC 7396 JSON merge patches applied in order, the first one onto nothing: objects merge field by
 * field, anything else (lists included) replaces, and `null` removes the field. The inputs (frozen
 * resources) are never changed: merged objects are new, lists and scalars are taken as they are.
 */
export function mergePatches(confs: readonly unknown[]): unknown {
  let result: unknown = undefined;
  for (const conf of confs) result = mergePatch(result, conf);
  return result;
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch; // lists and scalars replace, as they are
  const merged: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = mergePatch(merged[key], value);
  }
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
