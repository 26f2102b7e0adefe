// Which policy set which field of the Config tree, from the proxy's `_policy-effects`.
import type { PolicyOrigin, ProxyPolicyEffects } from '../../../../shared/policy-types.js';
import { xdsTypeOf } from '../../lib/format/xds.js';

/** One resource's attributed fields: by path (`virtual_hosts[0].routes[0].route.timeout`), and every branch above one. */
export interface ResourceAttributions {
  at: ReadonlyMap<string, readonly PolicyOrigin[]>;
  within: ReadonlySet<string>;
}

/** Per resource id (`rds/echo`); a later attribution of the same field wins, as the plugins applied them. */
export function attributionsByResource(effects: ProxyPolicyEffects | undefined): Map<string, ResourceAttributions> {
  const byResource = new Map<string, { at: Map<string, readonly PolicyOrigin[]>; within: Set<string> }>();
  for (const { typeUrl, resource, path, origins } of effects?.attributions ?? []) {
    const id = `${xdsTypeOf(typeUrl)}/${resource}`;
    let entry = byResource.get(id);
    if (!entry) byResource.set(id, (entry = { at: new Map(), within: new Set() }));
    entry.at.set(path, origins);
    // Every branch above the field: `a`, `a.b`, `a.b[0]`…
    for (let end = path.search(/[.[]/); end > 0; end = nextBoundary(path, end)) entry.within.add(path.slice(0, end));
  }
  return byResource;
}

function nextBoundary(path: string, from: number): number {
  const next = path.slice(from + 1).search(/[.[]/);
  return next < 0 ? -1 : from + 1 + next;
}

/** "MeshTimeout timeout-backend, spec.to[0]" */
export function describeOrigin({ type, name, item }: PolicyOrigin): string {
  return `${type} ${name}, ${item}`;
}
