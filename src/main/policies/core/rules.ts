import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { Tags } from '../../../shared/resources.js';
import type { RuleMatch } from './policy.js';

/** One tag condition of a subset; `not` negates it (legacy `from` rules: "every caller but demo-client"). */
export interface SubsetTag {
  key: string;
  value: string;
  not?: boolean;
}

/** A set of proxies by their tags (Kuma's subsetutils.Subset); empty means every proxy. */
export type Subset = readonly SubsetTag[];

/** Kuma's `rules.Rule`: the merged conf of every item whose subset contains this one. */
export interface Rule<Conf> {
  subset: Subset;
  conf: Conf;
  /** The items merged into `conf`, in merge order (the last one wins a field they both set). */
  origins: readonly PolicyOrigin[];
  /**
   * MeshHTTPRoute: the item each route rule of `conf` came from, by the hash of its matches (Kuma's
   * OriginByMatches; the last item with those matches). Absent for the other types.
   */
  originByMatches?: ReadonlyMap<string, PolicyOrigin>;
}

/** Kuma's `inbound.Rule`: an inbound rule and its match; a rule without match applies to all traffic. */
export interface InboundRule<Conf> {
  match?: RuleMatch;
  conf: Conf;
  origins: readonly PolicyOrigin[];
}

/** An inbound as rules are keyed by it (Kuma's InboundListener): `address:port`. */
export type InboundKey = string;

export function inboundKey(address: string, port: number): InboundKey {
  return `${address}:${port}`;
}

/**
 * What one policy type computes for one proxy (Kuma's FromRules / ToRules / InboundRules).
 * Every list is in Kuma's order: `to` most specific subset first, `inbound` by match specificity.
 */
export interface ProxyRules<Conf> {
  /** Legacy `to` over `kuma.io/service` destinations: a destination takes the first rule whose subset contains it. */
  to: readonly Rule<Conf>[];
  /** Legacy `from`, per inbound: subsets of callers' tags. */
  from: ReadonlyMap<InboundKey, readonly Rule<Conf>[]>;
  /** `rules` (and `from` for the policies Kuma reads that way), per inbound. */
  inbound: ReadonlyMap<InboundKey, readonly InboundRule<Conf>[]>;
}

export function emptyProxyRules<Conf>(): ProxyRules<Conf> {
  return { to: [], from: new Map(), inbound: new Map() };
}

/**
 * True when every condition of `subset` holds for `tags` (Kuma's Subset.ContainsElement over one
 * tag set), where a tag set without any tag is only in the empty subset.
 */
export function subsetMatchesTags(subset: Subset, tags: Tags): boolean {
  if (subset.length === 0) return true;
  if (Object.keys(tags).length === 0) return false;
  return subset.every(({ key, value, not }) => (tags[key] === value) !== (not === true));
}

/** The rule a destination (or caller) with these tags takes: the first that matches, as Kuma's `Compute`. */
export function ruleFor<Conf>(rules: readonly Rule<Conf>[], tags: Tags): Rule<Conf> | undefined {
  return rules.find((rule) => subsetMatchesTags(rule.subset, tags));
}

/** The conf for all traffic of an inbound: the rule without match (Kuma keeps at most one). */
export function catchAllInboundRule<Conf>(rules: readonly InboundRule<Conf>[] | undefined): InboundRule<Conf> | undefined {
  return rules?.find((rule) => rule.match === undefined);
}
