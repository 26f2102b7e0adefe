// Kuma v2.14.3's xDS golden cases (../shared/kuma-cases/xds and xds-e2e) next to what meshdesk
// generates for the same proxy, both as leaves, with what each case puts out of scope.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { computeLabels } from '../../../src/main/resources/computed-labels.js';
import { parseResourceDocuments } from '../../../src/main/resources/parse.js';
import { validateResource } from '../../../src/main/resources/validate.js';
import type { PolicyResource } from '../../../src/main/policies/core/policy.js';
import { buildMeshContext } from '../../../src/main/xds/context/build-mesh-context.js';
import { generateProxy } from '../../../src/main/xds/generate/profile.js';
import { FEATURE_REUSE_PORT } from '../../../src/main/xds/generate/proxy.js';
import { SECRET_TYPE_URL, XDS_TYPE_URLS, shortTypeName } from '../../../src/main/xds/protocol/type-urls.js';
import { isPolicyType } from '../../../src/shared/policy-types.js';
import type { DataplaneResource, MeshResource, MeshSpec, Resource, ResourceInput } from '../../../src/shared/resources.js';
import { KUMA_CASES_DIR } from '../../support/kuma-cases.js';
import { KUMA_MESH_MTLS, KUMA_MESH_PERMISSIONS, redactedIdentity } from './kuma-mesh-mtls.js';
import { leaves, pointerToPath, toKumaJson, type KumaJson, type Leaf } from './xds-leaves.js';


/** A part of Kuma's configuration a case does not compare: resources whose name matches, and of those the leaves whose path matches. */
export interface ScopeRule {
  resource: RegExp;
  /** Matches every leaf when absent. */
  path?: RegExp;
  feature: string;
}

/**
 * What every case leaves out, as the cases' notes and the kuma-cases README say: meshdesk has no
 * transparent proxying, no legacy policies, and does not act as kuma-dp (whose metadata makes Kuma
 * add the admin and readiness resources). mTLS (TLS contexts, SDS secrets) is compared: the cases
 * whose Kuma mesh has it get it (kuma-mesh-mtls.ts), and their MeshTrafficPermissions with it.
 */
const CASE_SCOPE: readonly ScopeRule[] = [
  { resource: /^(inbound|outbound):passthrough:|^self_transparentproxy_/, feature: 'transparent proxying' },
  { resource: /./, path: /^(bindToPort|useOriginalDst|upstreamBindConfig)(\.|$)/, feature: 'transparent proxying' },
  { resource: /^kuma:(envoy:admin|readiness)$/, feature: "kuma-dp's own resources (admin and readiness, from kuma-dp metadata)" },
  {
    resource: /./,
    path: /\[name=envoy\.filters\.http\.(fault|local_ratelimit)\]|(^|\.)accessLog\[|\.routeConfig\.requestHeadersToAdd\[/,
    feature: 'legacy policies of the case mesh (FaultInjection, RateLimit, TrafficLog; the x-kuma-tags header they match on)',
  },
];

/**
 * Kuma's generator tests build RBAC from the legacy TrafficPermission (a network RBAC filter on
 * every mTLS chain, HTTP ones too, its policies named by the TrafficPermission), which meshdesk does
 * not implement; MeshTrafficPermission's RBAC is compared in the xds-e2e cases and the plugin goldens.
 */
const LEGACY_TRAFFIC_PERMISSION_SCOPE: ScopeRule = {
  resource: /./,
  path: /\[name=envoy\.filters\.(network|http)\.rbac\]/,
  feature: "legacy TrafficPermission (RBAC of Kuma's generator goldens)",
};

/**
 * Generator and plugin goldens are taken before the default policy plugins run; in a running
 * kuma-cp MeshTimeout (and MeshCircuitBreaker) then rewrite these fields on every proxy, so their
 * reference is what a running kuma-cp sent (xds-e2e), where they are compared.
 */
const PLUGIN_DEFAULTS_SCOPE: ScopeRule = {
  resource: /./,
  path: /(^|\.)(connectTimeout|requestHeadersTimeout|circuitBreakers)(\.|\[|$)|commonHttpProtocolOptions\.(idleTimeout|maxStreamDuration|maxConnectionDuration)$|\.route\.(timeout|idleTimeout)$|\[name=envoy\.filters\.network\.tcp_proxy\]\.typedConfig\.idleTimeout$/,
  feature: 'default policy plugins (MeshTimeout, MeshCircuitBreaker): compared in xds-e2e',
};

/**
 * The e2e mesh's outbounds are MeshServices (meshServices.mode Exclusive), whose listeners Kuma
 * tags with the service's KRI; outbounds by kuma.io/service, what meshdesk models, carry their
 * tags instead, as xds/meshhttproute-default-route shows. The names themselves are mapped by the
 * case's nameMap.
 */
const MESH_SERVICE_TAGS_SCOPE: ScopeRule = {
  resource: /^outbound:/,
  path: /^metadata\.filterMetadata\["io\.kuma\.tags"\]/,
  feature: 'MeshService naming (io.kuma.tags of MeshService outbounds)',
};

/** A MeshService's SNI is `a<fnv64a>.<name>.<port>.<mesh>.ms`; a kuma.io/service outbound's, Kuma's legacy `<service>{mesh=<mesh>}`. */
const MESH_SERVICE_SNI_SCOPE: ScopeRule = {
  resource: /./,
  path: /^transportSocket\.typedConfig\.sni$/,
  feature: 'MeshService naming (SNI of MeshService clusters)',
};

/**
 * Each generator and plugin test hands its proxy its own internal address ranges (kuma-cp's
 * `ipam.knownInternalCIDRs`, e.g. 9.10.11.12/12); meshdesk declares kuma-cp's defaults, which
 * xds-e2e compares with what a running kuma-cp sends.
 */
const TEST_INTERNAL_ADDRESSES_SCOPE: ScopeRule = {
  resource: /./,
  path: /\.internalAddressConfig\./,
  feature: "the generator test's own kuma-cp setting ipam.knownInternalCIDRs: compared in xds-e2e",
};

export type XdsArea = 'xds' | 'xds-e2e';

/** One proxy of one case: Kuma's resources and meshdesk's, keyed `<type>/<name>`. */
export interface XdsCaseProxy {
  area: XdsArea;
  caseId: string;
  proxy: string;
  /** Whether the case exists to show a policy (its fields are scored apart). */
  policy: boolean;
  kuma: Map<string, KumaJson>;
  meshdesk: Map<string, KumaJson>;
  scope: ScopeRule[];
  /** `<resource key>\n<leaf path>` of the fields a policy of the case sets (Kuma's diff). */
  policyFields: Set<string>;
  /** Documents of the case's meshdesk.yaml that meshdesk refused, with the reason. */
  refused: string[];
}

export function loadXdsCases(): XdsCaseProxy[] {
  return [...caseDirs('xds').flatMap(loadGeneratorCase), ...caseDirs('xds-e2e').flatMap(loadE2eCase)];
}

function caseDirs(area: XdsArea): string[] {
  const dir = path.join(KUMA_CASES_DIR, area);
  return fs
    .readdirSync(dir)
    .sort()
    .map((name) => path.join(dir, name))
    .filter((caseDir) => fs.existsSync(path.join(caseDir, 'case.json')));
}

interface GeneratorCaseJson {
  id: string;
  golden: string[];
  meshdeskInput: string;
  proxy: { mesh: string; name: string };
  scope: 'all' | 'outbound';
  excludeKuma?: { name: string; reason: string }[];
  oosRules: { resource: string; path: string; feature: string }[];
}

function loadGeneratorCase(dir: string): XdsCaseProxy[] {
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8')) as GeneratorCaseJson;
  const kuma = new Map<string, KumaJson>();
  for (const file of json.golden) {
    const golden = parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { resources?: { name: string; resource: KumaJson }[] };
    for (const { name, resource } of golden.resources ?? []) {
      const { '@type': typeUrl, ...rest } = resource;
      if (!isComparedType(String(typeUrl))) continue;
      if (json.excludeKuma?.some((rule) => new RegExp(rule.name).test(name))) continue;
      kuma.set(resourceKey(String(typeUrl), name), rest);
    }
  }
  const generated = generateForCase(path.join(dir, json.meshdeskInput), json.proxy.mesh, json.proxy.name, { mtls: KUMA_MESH_MTLS[json.id] });
  // A generator's golden holds SDS secrets only when it is the secrets generator's (or a whole profile's).
  const goldenHasSecrets = [...kuma.keys()].some((key) => key.startsWith(`${shortTypeName(SECRET_TYPE_URL)}/`));
  const meshdesk = new Map(
    [...generated.resources].filter(
      ([key]) => (json.scope === 'all' || !isInboundSide(key)) && (goldenHasSecrets || !key.startsWith(`${shortTypeName(SECRET_TYPE_URL)}/`)),
    ),
  );
  return [
    {
      area: 'xds',
      caseId: json.id,
      proxy: json.proxy.name,
      policy: false,
      kuma,
      meshdesk,
      scope: [...caseRules(json.oosRules), ...CASE_SCOPE, LEGACY_TRAFFIC_PERMISSION_SCOPE, PLUGIN_DEFAULTS_SCOPE, TEST_INTERNAL_ADDRESSES_SCOPE],
      policyFields: new Set(),
      refused: generated.refused,
    },
  ];
}

interface E2eCaseJson {
  id: string;
  policy: boolean;
  meshdeskInput: string;
  mesh: string;
  proxies: { name: string; golden: string }[];
  nameMap: Record<string, string>;
  oosRules: { resource: string; path: string; feature: string }[];
}

interface E2eGolden {
  xds: Record<string, Record<string, KumaJson>>;
  diff: { op: string; path: string }[];
}

function loadE2eCase(dir: string): XdsCaseProxy[] {
  const json = JSON.parse(fs.readFileSync(path.join(dir, 'case.json'), 'utf8')) as E2eCaseJson;
  return json.proxies.map((proxy) => {
    const golden = JSON.parse(renamed(fs.readFileSync(path.join(dir, proxy.golden), 'utf8'), json.nameMap)) as E2eGolden;
    const kuma = new Map<string, KumaJson>();
    for (const [typeUrl, byName] of Object.entries(golden.xds)) {
      if (!isComparedType(typeUrl)) continue;
      for (const [name, resource] of Object.entries(byName)) kuma.set(resourceKey(typeUrl, name), resource);
    }
    const generated = generateForCase(path.join(dir, json.meshdeskInput), json.mesh, proxy.name, {
      features: KUMA_DP_DEFAULT_FEATURES,
      zone: E2E_ZONE,
      mtls: KUMA_MESH_MTLS[json.id],
      policies: KUMA_MESH_PERMISSIONS[json.id],
    });
    const meshdesk = new Map<string, KumaJson>(
      [...generated.resources].map(([key, resource]) => {
        const [type, name] = splitKey(key);
        return [resourceKey(type, redacted(name)), JSON.parse(redactedJson(JSON.stringify(resource))) as KumaJson];
      }),
    );
    return {
      area: 'xds-e2e' as const,
      caseId: json.id,
      proxy: proxy.name,
      policy: json.policy,
      kuma,
      meshdesk,
      scope: [...caseRules(json.oosRules), ...CASE_SCOPE, MESH_SERVICE_TAGS_SCOPE, MESH_SERVICE_SNI_SCOPE],
      policyFields: policyFields(golden, json.nameMap),
      refused: generated.refused,
    };
  });
}

function caseRules(rules: GeneratorCaseJson['oosRules']): ScopeRule[] {
  return rules.map((rule) => ({
    resource: new RegExp(rule.resource),
    ...(rule.path !== '' && { path: new RegExp(rule.path) }),
    feature: rule.feature,
  }));
}

/** The leaves Kuma's config diff adds: what the case's policy changes. */
function policyFields(golden: E2eGolden, nameMap: Record<string, string>): Set<string> {
  const fields = new Set<string>();
  for (const change of golden.diff) {
    if (change.op !== 'add' && change.op !== 'replace') continue;
    const [, typeToken, rawName, ...pointer] = change.path.split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
    const nameToken = nameMap[rawName!] ?? rawName!;
    const key = resourceKey(typeToken!, nameToken);
    const resource = golden.xds[typeToken!]?.[nameToken];
    for (const leaf of leaves(resource === undefined ? undefined : pointerValue(resource, pointer))) {
      const base = pointerToPath(resource, pointer);
      fields.add(`${key}\n${leaf.path === '' ? base : `${base}.${leaf.path}`}`);
    }
  }
  return fields;
}

function pointerValue(resource: unknown, pointer: readonly string[]): unknown {
  return pointer.reduce<unknown>((value, token) => (value as Record<string, unknown> | undefined)?.[token], resource);
}

/** Kuma's e2e redaction (test/e2e_env/universal/envoyconfig/utils.go), applied to meshdesk's side too. */
function redactedJson(json: string): string {
  return redacted(json)
    .replace(/"statPrefix":\s*"[^"]*"/g, '"statPrefix":"STAT_PREFIX_REDACTED"')
    .replace(/,\s*"dnsLookupFamily":\s*"[^"]*"/g, '');
}

function redacted(text: string): string {
  return text.replace(/\b(?:\d{1,3}\.){3}\d{1,3}\b/g, 'IP_REDACTED');
}

/** The case's exact-string renames (MeshService names → kuma.io/service names), on Kuma's side. */
function renamed(json: string, nameMap: Record<string, string>): string {
  let result = json;
  for (const [from, to] of Object.entries(nameMap)) result = result.replaceAll(JSON.stringify(from), JSON.stringify(to));
  return result;
}

function isComparedType(typeUrl: string): boolean {
  return (XDS_TYPE_URLS as readonly string[]).includes(typeUrl);
}

export function resourceKey(typeUrl: string, name: string): string {
  return `${shortTypeName(typeUrl)}/${name}`;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  const short = key.slice(0, slash);
  const typeUrl = XDS_TYPE_URLS.find((candidate) => shortTypeName(candidate) === short)!;
  return [typeUrl, key.slice(slash + 1)];
}

/** Resources of the inbound side (its listeners and local clusters), which outbound-only goldens do not hold. */
function isInboundSide(key: string): boolean {
  const [, name] = splitKey(key);
  return name.startsWith('inbound:') || name.startsWith('localhost:');
}

interface GeneratedCase {
  resources: Map<string, KumaJson>;
  refused: string[];
}

/**
 * The e2e sidecars are kuma-dp, which advertises the features it supports in node metadata; of
 * those the generators act on reuse-port, on by default. Generator tests give their proxy none.
 */
const KUMA_DP_DEFAULT_FEATURES: ReadonlySet<string> = new Set([FEATURE_REUSE_PORT]);

/**
 * The zone of the e2e control plane: Kuma's universal e2e environment runs one zone control plane
 * named after its cluster, Kuma3 (test/framework/envs/universal/env.go; universal_cluster.go sets
 * KUMA_MULTIZONE_ZONE_NAME to it).
 */
const E2E_ZONE = 'kuma-3';

interface CaseControlPlane {
  /** What the proxy advertises in its node metadata. */
  features?: ReadonlySet<string>;
  /**
   * The zone of a running control plane, whose manager stored the case's resources (computing their
   * labels on write); generator and plugin tests hand their resources to the generators unwritten.
   */
  zone?: string;
  /** The mTLS of the case's Kuma mesh, which its meshdesk.yaml leaves out (test/kuma/support/kuma-mesh-mtls.ts). */
  mtls?: MeshSpec['mtls'];
  /** The MeshTrafficPermissions of the case's Kuma mesh, which its meshdesk.yaml leaves out (same file); its own policies are read from it. */
  policies?: readonly PolicyResource[];
}

/** meshdesk's resources from the case's meshdesk.yaml, read as the API reads them, and the proxy's generated configuration. */
function generateForCase(inputPath: string, meshName: string, proxyName: string, { features = new Set(), zone, mtls, policies = [] }: CaseControlPlane = {}): GeneratedCase {
  const refused: string[] = [];
  const inputs: ResourceInput[] = [];
  for (const document of parseResourceDocuments(fs.readFileSync(inputPath, 'utf8'))) {
    try {
      inputs.push(validateResource(document));
    } catch (error) {
      refused.push(`${describeDocument(document)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // As meshdesk's manager stores them (manager/resource-manager.ts), when a control plane wrote them.
  const resources = inputs.map((input) => stored(zone === undefined ? input : { ...input, labels: computeLabels(input, zone) }));
  const found = resources.find((resource): resource is MeshResource => resource.type === 'Mesh' && resource.meta.name === meshName);
  if (!found) throw new Error(`${inputPath}: no Mesh "${meshName}"`);
  const mesh: MeshResource = mtls ? { ...found, spec: { ...found.spec, mtls } } : found;
  const dataplanes = resources.filter(
    (resource): resource is DataplaneResource => resource.type === 'Dataplane' && resource.meta.mesh === meshName,
  );
  // The case's own policies, validated as the API validates them, beside those of its Kuma mesh.
  const casePolicies = resources.filter(
    (resource): resource is Resource & PolicyResource => isPolicyType(resource.type) && resource.meta.mesh === meshName,
  );
  const context = buildMeshContext(mesh, dataplanes, { policies: [...policies, ...casePolicies], ...(zone !== undefined && { zone }) });
  // The proxy's Dataplane as the watchdog takes it, from the context (xds/sync/dataplane-watchdog.ts).
  const dataplane = context.dataplanesByName.get(proxyName);
  if (!dataplane) throw new Error(`${inputPath}: no Dataplane "${proxyName}" in mesh "${meshName}"`);
  // The whole configuration, policy plugins included: Kuma's plugins write defaults even without policies.
  const generated = generateProxy(context, {
    id: `${meshName}.${proxyName}`,
    dataplane,
    kind: 'envoy',
    features,
    ...(mtls && { identity: redactedIdentity(meshName) }),
  }).resources;
  const byKey = new Map<string, KumaJson>();
  for (const typeUrl of XDS_TYPE_URLS) {
    for (const { name, resource } of generated[typeUrl]) byKey.set(resourceKey(typeUrl, name), toKumaJson(typeUrl, resource));
  }
  return { resources: byKey, refused };
}

const TIME = '2024-01-01T00:00:00.000Z';

function stored(input: ResourceInput): Resource {
  return {
    type: input.type,
    meta: { mesh: input.mesh ?? '', name: input.name, version: 1, creationTime: TIME, modificationTime: TIME, labels: input.labels ?? {} },
    spec: input.spec,
  } as Resource;
}

function describeDocument(document: unknown): string {
  const { type, name } = (document ?? {}) as { type?: unknown; name?: unknown };
  return `${String(type)} "${String(name)}"`;
}

export type { Leaf };
