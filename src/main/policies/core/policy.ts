import type { PolicyType } from '../../../shared/policy-types.js';
import type { ResourceMeta } from '../../../shared/resources.js';
import type { TargetRef } from './target-ref.js';

/** An inbound rule's match (Kuma's `rules[].matches[]`): who is calling, or which SNI they asked for. */
export interface RuleMatch {
  spiffeID?: { type: 'Exact' | 'Prefix'; value: string };
  sni?: { type: 'Exact'; value: string };
}

/** One `to` item: a destination and what applies to it. Route policies carry `rules` instead of `default`. */
export interface ToItem<Conf = unknown> {
  targetRef: TargetRef;
  default?: Conf;
  /** MeshHTTPRoute, MeshTCPRoute: route rules, kept as the policy's own types read them. */
  rules?: unknown[];
}

/** One legacy `from` item: a set of callers, by tags, and what applies to their traffic. */
export interface FromItem<Conf = unknown> {
  targetRef: TargetRef;
  default: Conf;
}

/** One inbound `rules` item: every match is its own rule; without matches it applies to all traffic. */
export interface InboundRuleItem<Conf = unknown> {
  matches?: RuleMatch[];
  default: Conf;
}

/** The part of every targetRef policy's spec the rules engine reads. An omitted top-level targetRef is Mesh. */
export interface PolicySpec<Conf = unknown> {
  targetRef?: TargetRef;
  to?: ToItem<Conf>[];
  from?: FromItem<Conf>[];
  rules?: InboundRuleItem<Conf>[];
}

/** A stored policy, as the cached manager hands it out (frozen). */
export interface PolicyResource<Conf = unknown> {
  type: PolicyType;
  meta: ResourceMeta;
  spec: PolicySpec<Conf>;
}
