/**
 * Freezes a plain data tree (objects and arrays) in place and returns it.
 * Stops at objects that are already frozen, so shared frozen subtrees are not walked twice.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
  return value;
}
