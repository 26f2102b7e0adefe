// Inbound `rules` with matches (Kuma's builders/xds/matchers): a filter wrapped in an
// ExtensionWithMatcher that SKIPS it unless the connection matches, so each rule's faults hit only
// the callers it names (their mTLS certificate's URI SAN, or the SNI they asked for).
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { matchPredicate } from '../core/match-predicate.js';
import type { RuleMatch } from '../core/policy.js';

export const EXTENSION_WITH_MATCHER_TYPE_URL = 'type.googleapis.com/envoy.extensions.common.matching.v3.ExtensionWithMatcher';
const SKIP_FILTER_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.common.matcher.action.v3.SkipFilter';

/**
 * `filter` (a named typed config) run only for connections matching `match`: the xDS matcher's one
 * field matcher skips it when the match does NOT hold. Without a match it always runs (empty matcher).
 */
export function filterUnlessMatched(filter: ProtoJson, match: RuleMatch | undefined): ProtoJson {
  const predicate = match && matchPredicate(match);
  const xdsMatcher = predicate
    ? {
        matcher_list: {
          matchers: [
            { predicate: { not_matcher: predicate }, on_match: { action: { name: 'skip', typed_config: { '@type': SKIP_FILTER_TYPE_URL } } } },
          ],
        },
      }
    : {};
  return { '@type': EXTENSION_WITH_MATCHER_TYPE_URL, extension_config: filter, xds_matcher: xdsMatcher };
}
