// An inbound rule's match as an xDS matcher predicate (Kuma's builders/xds/matchers), which the
// plugins that act per caller share: the caller's mTLS certificate URI SAN, the SNI it asked for.
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { RuleMatch } from './policy.js';

const URI_SAN_INPUT_TYPE_URL = 'type.googleapis.com/envoy.extensions.matching.common_inputs.ssl.v3.UriSanInput';
const SERVER_NAME_INPUT_TYPE_URL = 'type.googleapis.com/envoy.extensions.matching.common_inputs.network.v3.ServerNameInput';

function singlePredicate(input: string, typeUrl: string, valueMatch: ProtoJson): ProtoJson {
  return { single_predicate: { input: { name: input, typed_config: { '@type': typeUrl } }, value_match: valueMatch } };
}

/** Kuma's matchesConfigurer for one match: spiffeID and SNI both present must both hold; undefined for an empty match. */
export function matchPredicate(match: RuleMatch): ProtoJson | undefined {
  const predicates: ProtoJson[] = [];
  if (match.spiffeID) {
    const value = match.spiffeID.type === 'Prefix' ? { prefix: match.spiffeID.value } : { exact: match.spiffeID.value };
    predicates.push(singlePredicate('envoy.matching.inputs.uri_san', URI_SAN_INPUT_TYPE_URL, value));
  }
  if (match.sni) predicates.push(singlePredicate('envoy.matching.inputs.server_name', SERVER_NAME_INPUT_TYPE_URL, { exact: match.sni.value }));
  if (predicates.length <= 1) return predicates[0];
  return { and_matcher: { predicate: predicates } };
}

/** Kuma's CombinedPredicate: any of the matches (one alone as it is); undefined when none says anything. */
export function anyMatchPredicate(matches: readonly RuleMatch[]): ProtoJson | undefined {
  const predicates = matches.map(matchPredicate).filter((predicate): predicate is ProtoJson => predicate !== undefined);
  if (predicates.length <= 1) return predicates[0];
  return { or_matcher: { predicate: predicates } };
}
