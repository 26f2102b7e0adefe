// Legacy `from` subsets: who is calling, by the tags the caller's sidecar sends in `x-kuma-tags`
// (`&kuma.io/service=web&version=v1,v2&`: every tag of every inbound of the caller).
import type { DataplaneSpec } from '../../../shared/resources.js';
import { KUMA_TAGS_HEADER } from '../../xds/generate/inbound-proxy-generator.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { Subset, SubsetTag } from '../core/rules.js';

/** Kuma's tags.MatchingRegex: every tag (keys sorted) must be in the header; `*` matches any value. */
function matchingRegex(tags: readonly SubsetTag[]): string {
  const sorted = [...tags].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return `.*${sorted.map(({ key, value }) => `&${key}=${(value === '*' ? '' : `[^&]*${value}[,&]`).replaceAll('.', '\\.')}.*`).join('')}`;
}

/**
 * Kuma's createHeaders: one matcher requiring every positive tag, then one requiring every
 * negated tag, inverted (so it passes unless the caller has all of them). None for an empty subset.
 */
export function callerHeaderMatchers(subset: Subset): ProtoJson[] {
  const positive = subset.filter((tag) => !tag.not);
  const negated = subset.filter((tag) => tag.not);
  const matcher = (tags: readonly SubsetTag[], invert: boolean): ProtoJson => ({
    name: KUMA_TAGS_HEADER,
    string_match: { safe_regex: { regex: matchingRegex(tags) } },
    ...(invert && { invert_match: true }),
  });
  return [...(positive.length > 0 ? [matcher(positive, false)] : []), ...(negated.length > 0 ? [matcher(negated, true)] : [])];
}

/** Kuma's tags.Serialize: `&key=value1,value2&` per tag, keys and values sorted, as a sidecar sends its own tags. */
export function serializeCallerTags(tags: ReadonlyMap<string, ReadonlySet<string>>): string {
  return [...tags.keys()].sort().map((key) => `&${key}=${[...tags.get(key)!].sort().join(',')}&`).join('');
}

/** The tags a caller's sidecar would send: every value of every tag of its inbounds. */
export function callerTags(dataplane: DataplaneSpec): ReadonlyMap<string, ReadonlySet<string>> {
  const tags = new Map<string, Set<string>>();
  for (const inbound of dataplane.networking.inbound ?? []) {
    for (const [key, value] of Object.entries(inbound.tags ?? {})) tags.set(key, (tags.get(key) ?? new Set()).add(value));
  }
  return tags;
}

/**
 * Whether `callerHeaderMatchers(subset)` let a caller with these tags through: those very matchers,
 * run on the header the caller's sidecar would send, so a proxyless client is judged exactly as
 * Envoy judges a sidecar (a value also matches as a suffix, `v1` in `release-v1`, as Kuma's regex
 * does). Envoy and gRPC run RE2; tag values (letters, digits, `.-_/`) read the same in JS.
 */
export function subsetMatchesCaller(subset: Subset, tags: ReadonlyMap<string, ReadonlySet<string>>): boolean {
  const header = serializeCallerTags(tags);
  return callerHeaderMatchers(subset).every((matcher) => {
    const { regex } = (matcher.string_match as { safe_regex: { regex: string } }).safe_regex;
    // safe_regex matches the whole value.
    return new RegExp(`^(?:${regex})$`).test(header) !== (matcher.invert_match === true);
  });
}
