/** By rule (few: interned per context), then by resource (a Map: identity lookups are cheaper than a WeakMap's). */
const derivations = new WeakMap<object, Map<object, unknown>>();

/**
 * What `derive` makes of a resource under a rule, made once and shared: proxies generated from one
 * MeshContext share the profile's resources and their rules (both memoized per context), so a
 * plugin that derives through this hands every such proxy the very same object, which the encoded
 * resource cache then encodes once instead of once per proxy. `derive` must read nothing but its
 * two keys (and constants). A result lives as long as its rule, which lives as long as its context.
 */
export function derived<T>(resource: object, rule: object, derive: () => T): T {
  let byResource = derivations.get(rule);
  if (!byResource) derivations.set(rule, (byResource = new Map()));
  if (byResource.has(resource)) return byResource.get(resource) as T;
  const value = derive();
  byResource.set(resource, value);
  return value;
}
