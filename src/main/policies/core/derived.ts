const derivations = new WeakMap<object, WeakMap<object, unknown>>();

/**
 * What `derive` makes of a resource under a rule, made once and shared: proxies generated from one
 * MeshContext share the profile's resources and their rules (both memoized per context), so a
 * plugin that derives through this hands every such proxy the very same object, which the encoded
 * resource cache then encodes once instead of once per proxy. `derive` must read nothing but its
 * two keys (and constants); it lives as long as both of them do.
 */
export function derived<T>(resource: object, rule: object, derive: () => T): T {
  let byRule = derivations.get(resource);
  if (!byRule) derivations.set(resource, (byRule = new WeakMap()));
  if (byRule.has(rule)) return byRule.get(rule) as T;
  const value = derive();
  byRule.set(rule, value);
  return value;
}
