/** By rule, then by resource: weak both ways, as either may be dropped first (see below). */
const derivations = new WeakMap<object, WeakMap<object, unknown>>();

/**
 * What `derive` makes of a resource under a rule, made once and shared: proxies generated from one
 * MeshContext share the profile's resources and their rules (both memoized per context), so a
 * plugin that derives through this hands every such proxy the very same object, which the encoded
 * resource cache then encodes once instead of once per proxy. `derive` must read nothing but its
 * two keys (and constants): resources and rules equal to the previous context's are that context's
 * very objects (see `canonical`), so a result outlives the context that made it. It lives as long as
 * its rule and its resource.
 */
export function derived<T>(resource: object, rule: object, derive: () => T): T {
  let byResource = derivations.get(rule);
  if (!byResource) derivations.set(rule, (byResource = new WeakMap()));
  if (byResource.has(resource)) return byResource.get(resource) as T;
  const value = derive();
  byResource.set(resource, value);
  return value;
}
