import type { DataplaneResource } from '../../../shared/resources.js';

/** A proxy's tags with every value each key has (Kuma's MultiValueTagSet): keys and values sorted. */
export type MultiValueTags = ReadonlyMap<string, readonly string[]>;

const tagSets = new WeakMap<DataplaneResource, MultiValueTags>();

/** Kuma's Dataplane TagSet: the tags of every inbound and of the gateway, all values of each key; once per (immutable) Dataplane. */
export function dataplaneTagSet(dataplane: DataplaneResource): MultiValueTags {
  let tagSet = tagSets.get(dataplane);
  if (tagSet === undefined) tagSets.set(dataplane, (tagSet = tagSetOf(dataplane)));
  return tagSet;
}

function tagSetOf(dataplane: DataplaneResource): MultiValueTags {
  const { networking } = dataplane.spec;
  const values = new Map<string, Set<string>>();
  for (const tags of [...(networking.inbound ?? []).map((inbound) => inbound.tags ?? {}), networking.gateway?.tags ?? {}]) {
    for (const [key, value] of Object.entries(tags)) {
      if (!values.has(key)) values.set(key, new Set());
      values.get(key)!.add(value);
    }
  }
  return new Map([...values.keys()].sort().map((key) => [key, [...values.get(key)!].sort()]));
}

/** Kuma's tags.Serialize, the `x-kuma-tags` header's value: `&key=v1,v2&` per key. */
export function serializeTags(tags: MultiValueTags): string {
  return [...tags].map(([key, values]) => `&${key}=${values.join(',')}&`).join('');
}
