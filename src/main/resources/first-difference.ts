import { fieldPath, indexPath } from './field-path.js';

/**
 * Where two JSON values first differ, as a field path (`networking.inbound[0].port`; '' for the
 * values themselves), or undefined when they are equal. Key order does not matter; array order does.
 */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.max(a.length, b.length); index++) {
      const difference = firstDifference(a[index], b[index], indexPath(path, index));
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  if (isRecord(a) && isRecord(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const difference = firstDifference(a[key], b[key], fieldPath(path, key));
      if (difference !== undefined) return difference;
    }
    return undefined;
  }
  return path;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
