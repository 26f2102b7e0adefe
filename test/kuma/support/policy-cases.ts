// Kuma v2.14.3's policy plugin golden cases (../shared/kuma-cases/policies/<policy>/<case>/), read
// as meshdesk inputs: the case's proxy and endpoints as a MeshContext, the rules Kuma's test hands
// its plugin as ProxyRules, and each golden resource in Kuma's JSON form. See that folder's README.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { EnvoyResources } from '../../../src/main/policies/core/envoy-resources.js';
import type { PolicyResource } from '../../../src/main/policies/core/policy.js';
import type { ProxyRules, Rule, InboundRule, Subset } from '../../../src/main/policies/core/rules.js';
import { validateResource } from '../../../src/main/resources/validate.js';
import { buildMeshContext } from '../../../src/main/xds/context/build-mesh-context.js';
import type { MeshContext } from '../../../src/main/xds/context/mesh-context.js';
import { generateProxyResources } from '../../../src/main/xds/generate/profile.js';
import type { Proxy } from '../../../src/main/xds/generate/proxy.js';
import type { PolicyOrigin, PolicyType } from '../../../src/shared/policy-types.js';
import type { DataplaneResource, MeshResource, Tags } from '../../../src/shared/resources.js';
import { KUMA_CASES_DIR, kumaCasesPresent } from '../../support/kuma-cases.js';
import type { KumaJson } from './xds-leaves.js';

export const POLICY_CASES_DIR = path.join(KUMA_CASES_DIR, 'policies');

interface SubsetJson {
  key: string;
  value: string;
  not?: boolean;
}

interface RulesAsTestedJson {
  toRules?: { subset: SubsetJson[] | null; conf: unknown }[] | Record<string, { subset: SubsetJson[] | null; conf: unknown }[]> | null;
  fromRules?: Record<string, { subset: SubsetJson[] | null; conf: unknown }[]> | null;
  inboundRules?: Record<string, { match: unknown; conf: unknown }[]> | null;
}

/** case.json, as far as meshdesk's tests read it (the README in the cases folder has every field). */
export interface PolicyCaseJson {
  id: string;
  policyType: PolicyType;
  title: string;
  mtls: boolean;
  proxyZone?: string;
  mesh: Record<string, unknown>;
  proxy: Record<string, unknown>;
  serviceProtocols?: Record<string, string>;
  endpoints?: Record<string, { address: string; port: number; tags?: Tags }[]>;
  policies: { type: PolicyType; name: string; mesh: string; spec: Record<string, unknown> }[];
  reconstructed: boolean;
  rulesAsTested: RulesAsTestedJson | null;
  expectedRules?: unknown;
  baseResources?: { kind: string; name: string; origin: string; description: string }[];
  goldens: { file: string; resource: string; fromPolicy?: string[]; fromBase?: string }[];
  notes?: string[];
}

export interface PolicyCase {
  /** `meshtimeout/http-outbound-route`. */
  id: string;
  dir: string;
  json: PolicyCaseJson;
  /** Each golden file as Kuma wrote it (a bare resource, or `{resources: [{name, resource}]}`), by file name. */
  goldens: Map<string, KumaJson>;
}

/**
 * Every case of one policy folder (`meshtimeout`), or of all of them; none without Kuma's data, so
 * that the factory of a suite skipped for that (`describe.skipIf(!kumaCasesPresent())`) still runs.
 */
export function policyCases(policyFolder?: string): PolicyCase[] {
  if (!kumaCasesPresent()) return [];
  const folders = policyFolder ? [policyFolder] : fs.readdirSync(POLICY_CASES_DIR).filter((name) => fs.statSync(path.join(POLICY_CASES_DIR, name)).isDirectory());
  return folders.sort().flatMap((folder) =>
    fs
      .readdirSync(path.join(POLICY_CASES_DIR, folder))
      .sort()
      .map((name) => path.join(POLICY_CASES_DIR, folder, name))
      .filter((dir) => fs.existsSync(path.join(dir, 'case.json')))
      .map((dir) => {
        const json = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8')) as PolicyCaseJson;
        const goldens = new Map(json.goldens.map(({ file }) => [file, (parse(fs.readFileSync(path.join(dir, file), 'utf8')) ?? {}) as KumaJson]));
        return { id: json.id, dir, json, goldens };
      }),
  );
}

/** A policy folder's validator cases (validation.json), as the cases README describes them; none without Kuma's data. */
export function policyValidationCases(policyFolder: string): {
  name: string;
  input: string;
  universalResource: Record<string, unknown>;
  expected: 'valid' | { field: string; message: string }[];
  violationOrderMatters?: boolean;
}[] {
  if (!kumaCasesPresent()) return [];
  const json = JSON.parse(fs.readFileSync(path.join(POLICY_CASES_DIR, policyFolder, 'validation.json'), 'utf8')) as { cases: never[] };
  return json.cases;
}

const TIME = '2026-01-01T00:00:00.000Z';

function stored<T extends 'Mesh' | 'Dataplane'>(input: Record<string, unknown>, type: T) {
  const read = validateResource(input, { type });
  return {
    type,
    meta: { mesh: read.mesh, name: read.name, version: 1, creationTime: TIME, modificationTime: TIME, labels: read.labels },
    spec: read.spec,
  };
}

/**
 * The case's proxy and a MeshContext around it: one Dataplane per endpoint of `endpoints` (split
 * cluster keys `<service>-<16 hex>` are left out: meshdesk derives split clusters itself), on the
 * endpoint's address and port (port 0, unset in the test, becomes 1000 + its index), tagged with
 * the service and the endpoint's tags.
 */
export function caseProxy(policyCase: PolicyCase, kind: Proxy['kind'] = 'envoy'): { proxy: Proxy; context: MeshContext } {
  const { json } = policyCase;
  const mesh = stored({ ...json.mesh, type: 'Mesh' }, 'Mesh') as MeshResource;
  const dataplane = stored(json.proxy, 'Dataplane') as DataplaneResource;
  const others: DataplaneResource[] = [];
  for (const [service, endpoints] of Object.entries(json.endpoints ?? {})) {
    if (/-[0-9a-f]{16}$/.test(service)) continue;
    endpoints.forEach((endpoint, index) => {
      others.push(
        stored(
          {
            type: 'Dataplane',
            mesh: mesh.meta.name,
            name: `${service.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}-endpoint-${index}`,
            networking: {
              address: endpoint.address,
              inbound: [{ port: endpoint.port || 1000 + index, tags: { ...endpoint.tags, 'kuma.io/service': service } }],
            },
          },
          'Dataplane',
        ) as DataplaneResource,
      );
    });
  }
  const context = buildMeshContext(mesh, [dataplane, ...others]);
  return { proxy: { id: `${mesh.meta.name}.${dataplane.meta.name}`, dataplane, kind }, context };
}

/** meshdesk's generated resources for the case's proxy, before any policy plugin runs. */
export function caseBaseResources(policyCase: PolicyCase, kind: Proxy['kind'] = 'envoy'): { proxy: Proxy; context: MeshContext; resources: EnvoyResources } {
  const { proxy, context } = caseProxy(policyCase, kind);
  return { proxy, context, resources: new EnvoyResources(generateProxyResources(context, proxy), context) };
}

/**
 * The rules Kuma's test hands the plugin, as meshdesk's ProxyRules, every rule attributed to the
 * case's first policy of `type` (the policy a reconstructed case wrote to produce them).
 * `toRules` given per policy type (a case with two route policies) is read for `type`.
 */
/**
 * The case's policies as stored resources, with the labels the case gives them (a rule named by its
 * policy's KRI needs its zone and namespace labels).
 */
export function casePolicyResources(policyCase: PolicyCase): PolicyResource[] {
  return policyCase.json.policies.map(
    (policy) =>
      ({
        type: policy.type,
        meta: { mesh: policy.mesh, name: policy.name, labels: (policy as { labels?: Record<string, string> }).labels ?? {}, version: 1, creationTime: '', modificationTime: '' },
        spec: policy.spec,
      }) as PolicyResource,
  );
}

export function rulesAsTested<Conf>(policyCase: PolicyCase, type: PolicyType = policyCase.json.policyType): ProxyRules<Conf> {
  const rules = policyCase.json.rulesAsTested ?? {};
  const policy = policyCase.json.policies.find((each) => each.type === type);
  const origin = (item: string): PolicyOrigin[] => (policy ? [{ type, mesh: policy.mesh, name: policy.name, item }] : []);
  const subset = (json: SubsetJson[] | null): Subset => (json ?? []).map(({ key, value, not }) => (not ? { key, value, not } : { key, value }));
  const toJson = Array.isArray(rules.toRules) ? rules.toRules : (rules.toRules?.[type] ?? []);
  const to: Rule<Conf>[] = toJson.map((rule, index) => ({ subset: subset(rule.subset), conf: rule.conf as Conf, origins: origin(`spec.to[${index}]`) }));
  const from = new Map(
    Object.entries(rules.fromRules ?? {}).map(([inbound, list]) => [
      inbound,
      list.map((rule, index): Rule<Conf> => ({ subset: subset(rule.subset), conf: rule.conf as Conf, origins: origin(`spec.from[${index}]`) })),
    ]),
  );
  const inbound = new Map(
    Object.entries(rules.inboundRules ?? {}).map(([key, list]) => [
      key,
      list.map(
        (rule, index): InboundRule<Conf> => ({
          ...(rule.match ? { match: rule.match as InboundRule<Conf>['match'] } : {}),
          conf: rule.conf as Conf,
          origins: origin(`spec.rules[${index}]`),
        }),
      ),
    ]),
  );
  return { to, from, inbound };
}

/** A golden's resources by name: a `resources:` list as it is, a bare resource under `name`. */
export function goldenResources(golden: KumaJson, name?: string): Map<string, KumaJson> {
  const list = golden['resources'] as { name: string; resource: KumaJson }[] | undefined;
  if (list) return new Map(list.map((entry) => [entry.name, entry.resource]));
  return new Map([[String(golden['name'] ?? name ?? ''), golden]]);
}
