// Compares what a policy plugin wrote with Kuma's golden resources, sub-object by sub-object, and
// reads the known differences of the 'policies' area (test/kuma/known-differences.ts).
import { EnvoyResources } from '../../../src/main/policies/core/envoy-resources.js';
import type { XdsTypeUrl } from '../../../src/main/xds/protocol/type-urls.js';
import { KNOWN_DIFFERENCES, type KnownDifference } from '../known-differences.js';
import { goldenResources, type PolicyCase } from './policy-cases.js';
import { leaves, toKumaJson, type KumaJson } from './xds-leaves.js';

/** A part of a golden resource a plugin writes: its JSON path in Kuma's camelCase form (`a.b[0].c`). */
export type SubObjectPath = string;

/** One difference between meshdesk's and Kuma's value of a leaf inside a compared sub-object. */
export interface LeafDifference {
  resource: string;
  path: string;
  kuma?: string;
  meshdesk?: string;
}

/** The value at `path` (`filterChains[0].filters[0].typedConfig`) of a JSON value, undefined when absent. */
export function at(json: unknown, path: SubObjectPath): unknown {
  let value = json;
  for (const token of path.match(/[^.[\]]+/g) ?? []) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}

/**
 * The leaves that differ between the golden's and meshdesk's value of each sub-object, for every
 * golden resource of `file` of type `typeUrl`. A golden resource is found in meshdesk's by its own
 * `name` (or `clusterName`): a `resources:` list names a resource by a label of Kuma's test.
 */
export function goldenDifferences(
  policyCase: PolicyCase,
  file: string,
  typeUrl: XdsTypeUrl,
  resources: EnvoyResources,
  subObjects: readonly SubObjectPath[],
): LeafDifference[] {
  const found: LeafDifference[] = [];
  for (const [label, golden] of goldenResources(policyCase.goldens.get(file)!)) {
    const name = String(golden['name'] ?? golden['clusterName'] ?? label);
    const ours = resources.get(typeUrl, name);
    if (!ours) {
      found.push({ resource: name, path: '', kuma: 'present', meshdesk: 'absent' });
      continue;
    }
    const mine = toKumaJson(typeUrl, ours);
    for (const path of subObjects) found.push(...subObjectDifferences(name, path, at(golden, path), at(mine, path)));
  }
  return found;
}

/** The leaves that differ between Kuma's and meshdesk's value of one sub-object (`path` names it in the result). */
export function subObjectDifferences(resource: string, path: string, kumaValue: unknown, meshdeskValue: unknown): LeafDifference[] {
  const kuma = new Map(leaves(kumaValue ?? null).map((leaf) => [leaf.path, leaf.value]));
  const meshdesk = new Map(leaves(meshdeskValue ?? null).map((leaf) => [leaf.path, leaf.value]));
  return [...new Set([...kuma.keys(), ...meshdesk.keys()])]
    .filter((leaf) => kuma.get(leaf) !== meshdesk.get(leaf))
    .map((leaf) => ({ resource, path: joinLeaf(path, leaf), kuma: kuma.get(leaf), meshdesk: meshdesk.get(leaf) }));
}

function joinLeaf(path: string, leaf: string): string {
  return leaf === '' || leaf.startsWith('[') ? `${path}${leaf}` : `${path}.${leaf}`;
}

/** The policy area's known differences that apply to a case: by its id, or by `<policy>/*` for every case of a policy. */
export function knownPolicyDifferences(caseId: string): KnownDifference[] {
  const applies = (entry: string) => entry === caseId || (entry.endsWith('/*') && caseId.startsWith(entry.slice(0, -1)));
  return KNOWN_DIFFERENCES.filter((difference) => difference.area === 'policies' && applies(difference.case));
}

/** Splits differences into those a known difference explains and the rest; says which known ones were used. */
export function explainDifferences(
  caseId: string,
  differences: readonly LeafDifference[],
): { unexplained: LeafDifference[]; used: Set<KnownDifference> } {
  const known = knownPolicyDifferences(caseId);
  const used = new Set<KnownDifference>();
  const unexplained = differences.filter((difference) => {
    const explaining = known.find(
      (entry) =>
        (entry.resource === undefined || new RegExp(entry.resource).test(difference.resource)) &&
        (entry.path === undefined || new RegExp(entry.path).test(difference.path)),
    );
    if (explaining) used.add(explaining);
    return !explaining;
  });
  return { unexplained, used };
}

export type { KumaJson };
