// Compares the resources a policy plugin leaves with the `resources:` list goldens of Kuma's route
// plugins (MeshHTTPRoute, MeshTCPRoute, MeshLoadBalancingStrategy, MeshTrafficPermission), leaf by
// leaf in both directions, so that a missing or extra route, cluster or endpoint shows as much as a
// wrong value. Kuma's plugin tests start from an empty resource set, so meshdesk's inbound
// resources (`inbound:…`, `localhost:…`) are out of scope.
import type { EnvoyResources } from '../../../src/main/policies/core/envoy-resources.js';
import {
  CLUSTER_TYPE_URL,
  ENDPOINT_TYPE_URL,
  LISTENER_TYPE_URL,
  ROUTE_TYPE_URL,
  type XdsTypeUrl,
} from '../../../src/main/xds/protocol/type-urls.js';
import { KNOWN_DIFFERENCES, type KnownDifference } from '../known-differences.js';
import type { PolicyCase } from './policy-cases.js';
import { leaves, toKumaJson, type KumaJson } from './xds-leaves.js';

const TYPE_BY_FILE: Record<string, XdsTypeUrl> = {
  listeners: LISTENER_TYPE_URL,
  clusters: CLUSTER_TYPE_URL,
  endpoints: ENDPOINT_TYPE_URL,
  routes: ROUTE_TYPE_URL,
};

const INBOUND_RESOURCE = /^(inbound:|localhost:)/;

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
      const kumaLeaves = new Map(leaves(kumaResource).map((leaf) => [leaf.path, leaf.value]));
      const meshdeskLeaves = new Map(leaves(meshdeskResource).map((leaf) => [leaf.path, leaf.value]));
      for (const path of [...new Set([...kumaLeaves.keys(), ...meshdeskLeaves.keys()])].sort()) {
        if (kumaLeaves.get(path) !== meshdeskLeaves.get(path)) {
          differences.push({ resource: name, path, kuma: kumaLeaves.get(path), meshdesk: meshdeskLeaves.get(path) });
        }
      }
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
  return KNOWN_DIFFERENCES.find(
    (known) =>
      known.area === 'policies' &&
      (known.case === '*' || known.case === caseId || (known.case.endsWith('/*') && caseId.startsWith(known.case.slice(0, -1)))) &&
      (known.resource === undefined || new RegExp(known.resource).test(difference.resource)) &&
      (known.path === undefined || new RegExp(known.path).test(difference.path)),
  );
}

export function describeDifference({ resource, path, kuma, meshdesk }: GoldenDifference): string {
  return `${resource} ${path || '(the resource)'}: Kuma ${kuma ?? '(absent)'}, meshdesk ${meshdesk ?? '(absent)'}`;
}
