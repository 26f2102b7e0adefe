import { describe, expect, it } from 'vitest';
import { callerHeaderMatcher, callerRoutes } from './caller-routes.js';
import type { RuleMatch } from './policy.js';
import type { InboundRule } from './rules.js';

type Conf = { limit?: number; burst?: number };
const origin = (item: string) => [{ type: 'MeshRateLimit' as const, mesh: 'default', name: 'mrl', item }];
const rule = (item: string, conf: Conf, match?: RuleMatch): InboundRule<Conf> => ({ ...(match && { match }), conf, origins: origin(item) });
const exact = (value: string): RuleMatch => ({ spiffeID: { type: 'Exact', value } });
const prefix = (value: string): RuleMatch => ({ spiffeID: { type: 'Prefix', value } });

describe("callers' route copies (Kuma's effectiveMatchedRouteRules)", () => {
  it('orders Exact, then longer prefixes, and merges over each match the base and every covering rule, least specific first', () => {
    const routes = callerRoutes(
      'MeshRateLimit',
      [
        rule('short', { limit: 1, burst: 1 }, prefix('spiffe://default/')),
        rule('long', { limit: 2 }, prefix('spiffe://default/ns/')),
        rule('web', { limit: 3 }, exact('spiffe://default/ns/web')),
        rule('sni', { limit: 4 }, { ...exact('spiffe://default/ns/web'), sni: { type: 'Exact', value: 'a.mesh' } }),
        rule('all', { limit: 9 }),
      ],
      () => true,
      { conf: { limit: 0, burst: 7 }, origins: origin('all') },
    );
    expect(routes.map(({ match, conf, origins }) => [match.spiffeID.value, conf, origins.map((each) => each.item)])).toEqual([
      ['spiffe://default/ns/web', { limit: 3, burst: 1 }, ['all', 'short', 'long', 'web']],
      ['spiffe://default/ns/', { limit: 2, burst: 1 }, ['all', 'short', 'long']],
      ['spiffe://default/', { limit: 1, burst: 1 }, ['all', 'short']],
    ]);
  });

  it('matches a URI SAN of the caller certificate in x-forwarded-client-cert, whole (Exact) or from its start (Prefix)', () => {
    const matches = (match: RuleMatch, header: string) =>
      new RegExp(`^(?:${(callerHeaderMatcher(match as never).string_match as { safe_regex: { regex: string } }).safe_regex.regex})$`).test(header);
    const header = 'By=spiffe://default/backend;Hash=ab12;URI=spiffe://default/web;URI=kuma://kuma.io/service/web';
    expect(matches(exact('spiffe://default/web'), header)).toBe(true);
    expect(matches(exact('spiffe://default/we'), header)).toBe(false);
    expect(matches(exact('spiffe://default/backend'), header)).toBe(false);
    expect(matches(prefix('spiffe://default/w'), header)).toBe(true);
    expect(matches(prefix('spiffe://other/'), header)).toBe(false);
    // Dots are literal.
    expect(matches(exact('spiffe://default/web.v1'), 'Hash=ab;URI=spiffe://default/webxv1')).toBe(false);
  });
});
