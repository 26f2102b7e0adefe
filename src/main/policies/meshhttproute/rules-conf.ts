import type { PolicyConfHooks } from '../core/policy-conf-hooks.js';
import { mergePatches } from '../core/merge-patch.js';
import type { HttpMatch } from './api.js';
import { ruleMatchesHash } from './prepare-routes.js';
import type { ToItem } from '../core/policy.js';

interface RouteRule {
  matches?: HttpMatch[];
  default?: unknown;
}

interface RoutesConf {
  rules?: RouteRule[];
  hostnames?: string[];
}

/**
 * How MeshHTTPRoute `to` items merge (Kuma's PolicyDefault: `rules` merged by their `matches`,
 * `hostnames` each their own group). A rule with the same `matches` as an earlier policy's is one
 * rule, its `default` merged in policy order; the rules come out with the most specific policy's
 * first, each policy's in its own order, because Gateway API routing takes the first rule that matches.
 */
export const meshHTTPRouteConfHooks: PolicyConfHooks = {
  // Reversed here and back after the merge, as Kuma's GetDefault/Transform, so that a rule sits
  // where its most specific policy put it.
  toItemConf: (item: ToItem) => {
    const { hostnames } = item as ToItem & { hostnames?: string[] };
    return { rules: [...((item.rules ?? []) as RouteRule[])].reverse(), ...(hostnames?.length ? { hostnames } : {}) };
  },
  mergeConfs: (confs) => byHostname(confs as RoutesConf[]).map(mergeRoutes),
  partKeys: (conf) => ((conf as RoutesConf).rules ?? []).map((rule) => ruleMatchesHash(rule.matches)),
};

/** Kuma's `mergeValues`: a conf counts once for each of its hostnames, alone in that group; no hostnames is its own group. */
function byHostname(confs: readonly RoutesConf[]): RoutesConf[][] {
  const groups = new Map<string, RoutesConf[]>();
  for (const conf of confs) {
    const hostnames = conf.hostnames?.length ? conf.hostnames : [''];
    for (const hostname of hostnames) {
      const group = groups.get(hostname) ?? [];
      group.push(hostname === '' ? conf : { ...conf, hostnames: [hostname] });
      groups.set(hostname, group);
    }
  }
  return [...groups.values()];
}

function mergeRoutes(confs: readonly RoutesConf[]): RoutesConf {
  const merged = mergePatches(confs) as RoutesConf;
  const rules = mergeRulesByMatches(confs.flatMap((conf) => conf.rules ?? [])).reverse();
  return { ...merged, rules };
}

/**
 * Kuma's `mergeValuesByKey` on `matches`: equal matches are one rule, placed where they last
 * appear. Matches are told apart by the hash they are known by everywhere else (route names,
 * originByMatches), so a policy's thousand rules merge in one pass instead of each against all.
 */
function mergeRulesByMatches(rules: readonly RouteRule[]): RouteRule[] {
  const groups = new Map<string, { matches: HttpMatch[] | undefined; defaults: unknown[] }>();
  for (const rule of rules) {
    const key = ruleMatchesHash(rule.matches);
    const group = groups.get(key) ?? { matches: rule.matches, defaults: [] };
    group.matches = rule.matches;
    group.defaults.push(rule.default);
    groups.delete(key); // re-added last: a Map keeps insertion order
    groups.set(key, group);
  }
  return [...groups.values()].map(({ matches, defaults }) => ({ matches, default: mergePatches(defaults) }));
}
