import { isDeepStrictEqual } from 'node:util';
import type { ProtoJson } from '../protocol/proto-json.js';
import {
  CLUSTER_TYPE_URL,
  ENDPOINT_TYPE_URL,
  LISTENER_TYPE_URL,
  ROUTE_TYPE_URL,
  SECRET_TYPE_URL,
  XDS_TYPE_URLS,
  shortTypeName,
  type XdsTypeUrl,
} from '../protocol/type-urls.js';

/** One resource in proto3 JSON (see ProtoJson), under the name clients subscribe to. */
export interface NamedResource {
  name: string;
  resource: ProtoJson;
}

/** Generated configuration of one proxy: every xDS type, in push order, each a list of named resources. */
export type GeneratedResources = { readonly [T in XdsTypeUrl]: readonly NamedResource[] };

/**
 * Collects resources while generating. A name may be added twice only with identical content
 * (two outbounds to one service share their cluster); a different resource under a taken name
 * is a conflict, because an xDS response must never carry the same name twice.
 */
export class ResourceSet {
  readonly #byType = new Map<XdsTypeUrl, Map<string, ProtoJson>>(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, new Map()]));

  add(typeUrl: XdsTypeUrl, name: string, resource: ProtoJson): this {
    const resources = this.#byType.get(typeUrl)!;
    const existing = resources.get(name);
    if (existing !== undefined) checkSameContent(typeUrl, name, existing, resource);
    resources.set(name, resource);
    return this;
  }

  toResources(): GeneratedResources {
    return resourcesByType((typeUrl) => [...this.#byType.get(typeUrl)!].map(([name, resource]) => ({ name, resource })));
  }
}

/**
 * A proxy's resources, each type's list as `listOf` gives it, the types in push order. Spelled as
 * one literal: an object made from entries is a slow dictionary to every reader after it.
 */
export function resourcesByType(listOf: (typeUrl: XdsTypeUrl) => readonly NamedResource[]): GeneratedResources {
  return {
    [SECRET_TYPE_URL]: listOf(SECRET_TYPE_URL),
    [CLUSTER_TYPE_URL]: listOf(CLUSTER_TYPE_URL),
    [ENDPOINT_TYPE_URL]: listOf(ENDPOINT_TYPE_URL),
    [LISTENER_TYPE_URL]: listOf(LISTENER_TYPE_URL),
    [ROUTE_TYPE_URL]: listOf(ROUTE_TYPE_URL),
  };
}

function checkSameContent(typeUrl: XdsTypeUrl, name: string, existing: ProtoJson, resource: ProtoJson): void {
  if (existing !== resource && !isDeepStrictEqual(existing, resource)) throw new Error(`two different ${shortTypeName(typeUrl)} resources are named "${name}"`);
}

/**
 * `earlier` and then `later`, as a ResourceSet would collect them: a name in both only with the
 * same content, kept once where `earlier` has it. A type only one side has is that side's very
 * list: most of a proxy's resources come from one generator's memoized lists, not copied per proxy.
 */
export function mergeResources(earlier: GeneratedResources, later: GeneratedResources): GeneratedResources {
  const merged = (typeUrl: XdsTypeUrl): readonly NamedResource[] => {
    const [first, second] = [earlier[typeUrl], later[typeUrl]];
    if (second.length === 0) return first;
    if (first.length === 0) return second;
    const byName = new Map(first.map(({ name, resource }) => [name, resource]));
    let shared = 0;
    for (const { name, resource } of second) {
      const existing = byName.get(name);
      if (existing === undefined) continue;
      checkSameContent(typeUrl, name, existing, resource);
      shared++;
    }
    return first.concat(shared === 0 ? second : second.filter(({ name }) => !byName.has(name)));
  };
  return resourcesByType(merged);
}
