// The most one policy may ask of the control plane: every rule is rebuilt on the event loop at each
// change, so a policy whose work grows as a product (subset combinations) or that lists thousands of
// items would stall every ADS stream and the API. Kuma bounds none of these (only header modifier
// lists, at 16); each bound here is far above what Kuma's docs and real meshes use. docs/limits.md
// gives the reasons; changing a bound here changes that table.
import { fieldPath, indexPath } from '../../resources/field-path.js';
import type { ViolationList } from '../../resources/validation-error.js';
import type { PolicyDescriptor } from './plugin.js';
import type { PolicySpec } from './policy.js';
import type { Subset } from './rules.js';
import { planSubsets, SubsetCombinationsError } from './subset-plan.js';
import { isTagKind, subsetOf } from './subsets.js';

/** Items of any list in a policy's spec (`to`, `from`, `rules`, a rule's `matches`, an `allow` list…). */
export const MAX_LIST_ITEMS = 1_000;
/** Route rules of one policy, all `spec.to[].rules` together (MeshHTTPRoute, MeshTCPRoute). */
export const MAX_ROUTE_RULES = 1_000;
/** Matches of one policy's route rules together: each is one Envoy route on every proxy it reaches. */
export const MAX_ROUTE_MATCHES = 4_000;
/** Subsets one policy's `to` (or `from`) items make: Kuma's legacy rules build one rule per subset. */
export const MAX_POLICY_SUBSET_COMBINATIONS = 1_024;
/**
 * Subsets the items of every policy of one type on one proxy (or inbound) make together; past it
 * the type's rules there are not built, with a warning naming the tag keys (as Kuma reports rules
 * it cannot build). Four policies at their own bound fit.
 */
export const MAX_PROXY_SUBSET_COMBINATIONS = 4 * MAX_POLICY_SUBSET_COMBINATIONS;

/** Reports every bound the spec exceeds, at the field that exceeds it; false when any does. */
export function checkInputBounds(descriptor: PolicyDescriptor, spec: PolicySpec, violations: ViolationList): boolean {
  const before = violations.violations.length;
  checkLists(spec, 'spec', violations);
  checkRouteRules(spec, violations);
  if (violations.violations.length > before) return false; // the counts below would walk the lists just refused
  if (descriptor.toKinds !== undefined) checkCombinations(spec.to, 'to', false, violations);
  if (descriptor.fromKinds !== undefined) checkCombinations(spec.from, 'from', true, violations);
  return violations.violations.length === before;
}

function checkLists(value: unknown, path: string, violations: ViolationList): void {
  if (Array.isArray(value)) {
    if (value.length > MAX_LIST_ITEMS) {
      violations.add(path, `must have at most ${MAX_LIST_ITEMS} items, has ${value.length}`);
      return;
    }
    value.forEach((item, index) => checkLists(item, indexPath(path, index), violations));
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) checkLists(item, fieldPath(path, key), violations);
  }
}

/** The route rules and their matches, counted over the whole policy; reported where the count passes the bound. */
function checkRouteRules(spec: PolicySpec, violations: ViolationList): void {
  let rules = 0;
  let matches = 0;
  for (const [index, item] of (spec.to ?? []).entries()) {
    const path = fieldPath(indexPath(fieldPath('spec', 'to'), index), 'rules');
    // Only the route types read `rules` here; in others it is the type's own, kept as given (anything).
    const itemRules: unknown[] = Array.isArray(item.rules) ? item.rules : [];
    rules += itemRules.length;
    if (rules > MAX_ROUTE_RULES) {
      violations.add(path, `brings the policy's route rules to ${rules}: at most ${MAX_ROUTE_RULES} in all of spec.to[].rules`);
      return;
    }
    for (const [ruleIndex, rule] of itemRules.entries()) {
      const ruleMatches = typeof rule === 'object' && rule !== null ? (rule as { matches?: unknown }).matches : undefined;
      matches += Array.isArray(ruleMatches) ? ruleMatches.length : 0;
      if (matches > MAX_ROUTE_MATCHES) {
        violations.add(fieldPath(indexPath(path, ruleIndex), 'matches'), `brings the policy's route matches to ${matches}: at most ${MAX_ROUTE_MATCHES} in all of spec.to[].rules[].matches`);
        return;
      }
    }
  }
}

/**
 * Counts the subsets the section's tag-kind items make on their own, as the rules would build
 * them. Items aimed at a MeshHTTPRoute become one subset per route rule only when the route is
 * known: they count when the rules are built (MAX_PROXY_SUBSET_COMBINATIONS).
 */
function checkCombinations(items: readonly { targetRef: PolicySpec['targetRef'] }[] | undefined, section: 'to' | 'from', withNegations: boolean, violations: ViolationList): void {
  const subsets = (items ?? []).flatMap(({ targetRef }): Subset[] => {
    const subset = targetRef && isTagKind(targetRef) ? subsetOf(targetRef) : undefined;
    return subset ? [subset] : [];
  });
  try {
    planSubsets(subsets, withNegations, MAX_POLICY_SUBSET_COMBINATIONS);
  } catch (error) {
    if (!(error instanceof SubsetCombinationsError)) throw error;
    violations.add(fieldPath('spec', section), error.message);
  }
}
