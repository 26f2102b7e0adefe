// Compares what a policy plugin leaves with Kuma's golden resources, and reads the known
// differences of the 'policies' area (test/kuma/known-differences.ts). Two ways: whole
// `resources:` list goldens leaf by leaf in both directions (route plugins: a missing or extra
// route, cluster or endpoint shows as much as a wrong value), or the sub-objects a plugin writes
// (cluster plugins, whose goldens carry Kuma's synthetic base around them). Kuma's plugin tests
// start from an empty resource set, so meshdesk's inbound resources are out of scope of the first.
import type { EnvoyResources } from '../../../src/main/policies/core/envoy-resources.js';
import {
  CLUSTER_TYPE_URL,
  ENDPOINT_TYPE_URL,
  LISTENER_TYPE_URL,
  ROUTE_TYPE_URL,
  type XdsTypeUrl,
} from '../../../src/main/xds/protocol/type-urls.js';
import { KNOWN_DIFFERENCES, type KnownDifference } from '../known-differences.js';
import { goldenResources, type PolicyCase } from './policy-cases.js';
import { leaves, toKumaJson, type KumaJson } from './xds-leaves.js';

const TYPE_BY_FILE: Record<string, XdsTypeUrl> = {
  listeners: LISTENER_TYPE_URL,
  clusters: CLUSTER_TYPE_URL,
  endpoints: ENDPOINT_TYPE_URL,
  routes: ROUTE_TYPE_URL,
};

const INBOUND_RESOURCE = /^(inbound:|localhost:)/;

/** One leaf (or, with path '', one whole resource) that differs between Kuma's golden and meshdesk. */
export interface GoldenDifference {
  resource: string;
  /** '' for the resource itself. */
  path: string;
  kuma?: string;
  meshdesk?: string;
  known?: KnownDifference;
}

/**
 * Every difference between the case's `resources:` goldens and `resources`, each with the known
 * difference (area `policies`) that explains it, if any. A known difference's `case` is a case id
 * (`meshhttproute/basic`), `<policy folder>/*`, or `*`.
 */
export function compareWithGoldens(policyCase: PolicyCase, resources: EnvoyResources): GoldenDifference[] {
  const differences: GoldenDifference[] = [];
  for (const [file, golden] of policyCase.goldens) {
    const typeUrl = TYPE_BY_FILE[/\.(\w+)\.golden\.yaml$/.exec(file)?.[1] ?? ''];
    if (typeUrl === undefined) continue; // secrets: meshdesk issues none without mTLS, as these cases
    const kuma = new Map(((golden['resources'] as { name: string; resource: KumaJson }[] | undefined) ?? []).map(({ name, resource }) => [name, withoutType(resource)]));
    const meshdesk = new Map(
      resources
        .list(typeUrl)
        .filter(({ name }) => !INBOUND_RESOURCE.test(name))
        .map(({ name, resource }) => [name, toKumaJson(typeUrl, resource)]),
    );
    for (const name of [...new Set([...kuma.keys(), ...meshdesk.keys()])].sort()) {
      const kumaResource = kuma.get(name);
      const meshdeskResource = meshdesk.get(name);
      if (!kumaResource || !meshdeskResource) {
        differences.push({ resource: name, path: '', kuma: kumaResource && 'present', meshdesk: meshdeskResource && 'present' });
        continue;
      }
      differences.push(...subObjectDifferences(name, '', kumaResource, meshdeskResource));
    }
  }
  for (const difference of differences) difference.known = knownDifference(policyCase.id, difference);
  return differences;
}

function withoutType(resource: KumaJson): KumaJson {
  const { '@type': _type, ...rest } = resource;
  return rest;
}

function knownDifference(caseId: string, difference: GoldenDifference): KnownDifference | undefined {
  return knownPolicyDifferences(caseId).find((known) => explains(known, difference));
}

/** A known difference explains a difference when its resource and path patterns (each optional) match it. */
export function explains(known: KnownDifference, difference: GoldenDifference): boolean {
  return (
    (known.resource === undefined || new RegExp(known.resource).test(difference.resource)) &&
    (known.path === undefined || new RegExp(known.path).test(difference.path))
  );
}

export function describeDifference({ resource, path, kuma, meshdesk }: GoldenDifference): string {
  return `${resource} ${path || '(the resource)'}: Kuma ${kuma ?? '(absent)'}, meshdesk ${meshdesk ?? '(absent)'}`;
}

/** A part of a golden resource a plugin writes: its JSON path in Kuma's camelCase form (`a.b[0].c`). */
export type SubObjectPath = string;

/**
 * The value at `path` (`filterChains[0].filters[0].typedConfig`; a key with dots quoted,
 * `typedExtensionProtocolOptions["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]`) of a
 * JSON value, undefined when absent.
 */
export function at(json: unknown, path: SubObjectPath): unknown {
  let value = json;
  for (const [quoted, key] of path.matchAll(/\["([^"]*)"\]|[^.[\]]+/g)) {
    const token = key ?? quoted;
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
): GoldenDifference[] {
  const found: GoldenDifference[] = [];
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
export function subObjectDifferences(resource: string, path: string, kumaValue: unknown, meshdeskValue: unknown): GoldenDifference[] {
  const kuma = new Map(leaves(kumaValue ?? null).map((leaf) => [leaf.path, leaf.value]));
  const meshdesk = new Map(leaves(meshdeskValue ?? null).map((leaf) => [leaf.path, leaf.value]));
  return [...new Set([...kuma.keys(), ...meshdesk.keys()])]
    .sort()
    .filter((leaf) => kuma.get(leaf) !== meshdesk.get(leaf))
    .map((leaf) => ({ resource, path: joinLeaf(path, leaf), kuma: kuma.get(leaf), meshdesk: meshdesk.get(leaf) }));
}

function joinLeaf(path: string, leaf: string): string {
  if (path === '') return leaf;
  return leaf === '' || leaf.startsWith('[') ? `${path}${leaf}` : `${path}.${leaf}`;
}

/** The policy area's known differences that apply to a case: by its id, or by `<policy>/*` for every case of a policy. */
export function knownPolicyDifferences(caseId: string): KnownDifference[] {
  const applies = (entry: string) => entry === '*' || entry === caseId || (entry.endsWith('/*') && caseId.startsWith(entry.slice(0, -1)));
  return KNOWN_DIFFERENCES.filter((difference) => difference.area === 'policies' && applies(difference.case));
}

/** Splits differences into those a known difference explains and the rest; says which known ones were used. */
export function explainDifferences(
  caseId: string,
  differences: readonly GoldenDifference[],
): { unexplained: GoldenDifference[]; used: Set<KnownDifference> } {
  const known = knownPolicyDifferences(caseId);
  const used = new Set<KnownDifference>();
  const unexplained = differences.filter((difference) => {
    const explaining = known.find((entry) => explains(entry, difference));
    if (explaining) used.add(explaining);
    return !explaining;
  });
  return { unexplained, used };
}

export type { KumaJson };
