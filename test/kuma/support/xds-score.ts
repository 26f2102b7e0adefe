// Compares meshdesk's resources with Kuma's, leaf by leaf, and scores names and structure.
import { KNOWN_DIFFERENCES, type KnownDifference } from '../known-differences.js';
import type { XdsCaseProxy } from './xds-cases.js';
import { leaves } from './xds-leaves.js';

/**
 * Leaves that name something: a resource, a filter, a route configuration, a virtual host, a
 * route, the cluster a route or a tcp_proxy sends to, a stat prefix.
 */
const NAME_FIELD = /(^|\.)(name|clusterName|cluster|statPrefix|altStatName|routeConfigName)$/;

/** One compared item: a resource's presence (path '') or one of its leaves. */
export interface Comparison {
  resource: string;
  path: string;
  kuma?: string;
  meshdesk?: string;
  equal: boolean;
  /** Counted among names (resource presence and naming leaves) as well as structure. */
  isName: boolean;
  /** Set by the policy a policy case shows (Kuma's diff): scored apart. */
  isPolicyField: boolean;
  /** The known difference that explains a mismatch. */
  known?: KnownDifference;
}

/** Every in-scope comparison of one case proxy: the union of both sides' resources and leaves. */
export function compareCaseProxy(proxy: XdsCaseProxy): Comparison[] {
  const results: Comparison[] = [];
  const keys = [...new Set([...proxy.kuma.keys(), ...proxy.meshdesk.keys()])].sort();
  for (const key of keys) {
    const name = key.slice(key.indexOf('/') + 1);
    const rules = proxy.scope.filter((rule) => rule.resource.test(name));
    if (rules.some((rule) => rule.path === undefined)) continue;
    const kuma = proxy.kuma.get(key);
    const meshdesk = proxy.meshdesk.get(key);
    const base = { resource: key, isPolicyField: false };
    results.push({ ...base, path: '', kuma: kuma && 'present', meshdesk: meshdesk && 'present', equal: !!kuma && !!meshdesk, isName: true });
    const kumaLeaves = new Map((kuma ? leaves(kuma) : []).map((leaf) => [leaf.path, leaf.value]));
    const meshdeskLeaves = new Map((meshdesk ? leaves(meshdesk) : []).map((leaf) => [leaf.path, leaf.value]));
    for (const path of [...new Set([...kumaLeaves.keys(), ...meshdeskLeaves.keys()])].sort()) {
      if (rules.some((rule) => rule.path!.test(path))) continue;
      const kumaValue = kumaLeaves.get(path);
      const meshdeskValue = meshdeskLeaves.get(path);
      results.push({
        ...base,
        path,
        kuma: kumaValue,
        meshdesk: meshdeskValue,
        equal: kumaValue !== undefined && kumaValue === meshdeskValue,
        isName: NAME_FIELD.test(path),
        isPolicyField: proxy.policyFields.has(`${key}\n${path}`),
      });
    }
  }
  for (const result of results) {
    if (!result.equal) result.known = knownDifference(proxy, result);
  }
  return results;
}

/** The area a mismatch is listed under in known-differences.ts. */
export function differenceArea(proxy: XdsCaseProxy, comparison: Comparison): KnownDifference['area'] {
  if (proxy.area === 'xds-e2e') return 'xds-e2e';
  return comparison.isName ? 'xds-names' : 'xds-structure';
}

function knownDifference(proxy: XdsCaseProxy, comparison: Comparison): KnownDifference | undefined {
  const area = differenceArea(proxy, comparison);
  const name = comparison.resource.slice(comparison.resource.indexOf('/') + 1);
  return KNOWN_DIFFERENCES.find(
    (difference) =>
      difference.area === area &&
      (difference.case === '*' || difference.case === proxy.caseId) &&
      (difference.resource === undefined || new RegExp(difference.resource).test(name)) &&
      (difference.path === undefined || new RegExp(difference.path).test(comparison.path)),
  );
}

export interface Score {
  equal: number;
  total: number;
}

export function percent(score: Score): string {
  return score.total === 0 ? 'n/a' : `${((100 * score.equal) / score.total).toFixed(1)} %`;
}

function score(comparisons: readonly Comparison[]): Score {
  return { equal: comparisons.filter((comparison) => comparison.equal).length, total: comparisons.length };
}

export interface XdsScores {
  names: Score;
  structure: Score;
  e2eNames: Score;
  e2eStructure: Score;
  /** The fields the policy cases' policies set. */
  e2ePolicyFields: Score;
}

/** The figures of issue 13: known differences count as misses; policy fields are scored apart. */
export function scoreXds(results: readonly { proxy: XdsCaseProxy; comparisons: readonly Comparison[] }[]): XdsScores {
  const pick = (area: XdsCaseProxy['area'], keep: (comparison: Comparison) => boolean) =>
    score(results.filter(({ proxy }) => proxy.area === area).flatMap(({ comparisons }) => comparisons.filter(keep)));
  return {
    names: pick('xds', (comparison) => comparison.isName),
    structure: pick('xds', () => true),
    e2eNames: pick('xds-e2e', (comparison) => comparison.isName && !comparison.isPolicyField),
    e2eStructure: pick('xds-e2e', (comparison) => !comparison.isPolicyField),
    e2ePolicyFields: pick('xds-e2e', (comparison) => comparison.isPolicyField),
  };
}
