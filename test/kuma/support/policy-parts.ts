// Running one policy plugin on a Kuma golden case (../shared/kuma-cases/policies) and reading the
// parts of a resource a plugin writes, in Kuma's JSON form, from the golden and from meshdesk alike.
import { expect } from 'vitest';
import type { EnvoyResources } from '../../../src/main/policies/core/envoy-resources.js';
import type { PolicyPlugin, UnappliedField } from '../../../src/main/policies/core/plugin.js';
import type { XdsTypeUrl } from '../../../src/main/xds/protocol/type-urls.js';
import { KNOWN_DIFFERENCES } from '../known-differences.js';
import { caseBaseResources, rulesAsTested, type PolicyCase } from './policy-cases.js';
import { toKumaJson, type KumaJson } from './xds-leaves.js';

/** meshdesk's resources for the case's proxy after the plugin ran with the rules Kuma's test hands its plugin. */
export function applyEnvoyToCase<Conf>(
  plugin: PolicyPlugin<Conf>,
  policyCase: PolicyCase,
  prepare: (resources: EnvoyResources) => void = () => {},
): { resources: EnvoyResources; unapplied: UnappliedField[] } {
  const { proxy, context, resources } = caseBaseResources(policyCase);
  prepare(resources);
  const unapplied: UnappliedField[] = [];
  plugin.applyEnvoy({ proxy, context, rules: rulesAsTested<Conf>(policyCase), resources, unapplied: (field) => unapplied.push(field) });
  return { resources, unapplied };
}

export function kumaJsonOf(resources: EnvoyResources, typeUrl: XdsTypeUrl, name: string): KumaJson {
  const resource = resources.get(typeUrl, name);
  expect(resource, `${typeUrl} ${name}`).toBeDefined();
  return toKumaJson(typeUrl, resource!);
}

type Json = Record<string, unknown>;

function filterConfigs(listener: Json): Json[] {
  const chains = (listener.filterChains as { filters?: { typedConfig?: Json }[] }[] | undefined) ?? [];
  return chains.flatMap((chain) => (chain.filters ?? []).map((filter) => filter.typedConfig ?? {}));
}

/** The first HttpConnectionManager of a listener (Kuma's JSON form). */
export function httpConnectionManagerOf(listener: Json): Json {
  return filterConfigs(listener).find((config) => String(config['@type']).endsWith('.HttpConnectionManager')) ?? {};
}

export function tcpProxyOf(listener: Json): Json {
  return filterConfigs(listener).find((config) => String(config['@type']).endsWith('.TcpProxy')) ?? {};
}

/** Every route of an inline route config or a RouteConfiguration, in order. */
export function routesOf(routeConfig: Json | undefined): Json[] {
  const hosts = (routeConfig?.virtualHosts as { routes?: Json[] }[] | undefined) ?? [];
  return hosts.flatMap((host) => host.routes ?? []);
}

export function pick(json: Json | undefined, keys: readonly string[]): Json {
  return Object.fromEntries(keys.filter((key) => json?.[key] !== undefined).map((key) => [key, json![key]]));
}

/** One compared part of a golden resource: what Kuma wrote and what meshdesk wrote. */
export interface ComparedPart {
  /** `<golden file>: <part>`, the `path` a known difference names. */
  name: string;
  kuma: unknown;
  meshdesk: unknown;
}

/**
 * Every part equals Kuma's, except the ones test/kuma/known-differences.ts lists for this case
 * (area `policies`), which must still differ: a fixed difference must leave the list.
 */
export function expectPartsMatch(policyCase: PolicyCase, parts: readonly ComparedPart[]): { matched: number; total: number } {
  let matched = 0;
  for (const part of parts) {
    const known = KNOWN_DIFFERENCES.some((difference) => difference.area === 'policies' && difference.case === policyCase.id && difference.path === part.name);
    if (known) expect(part.meshdesk, `${policyCase.id} ${part.name} (a known difference)`).not.toEqual(part.kuma);
    else expect(part.meshdesk, `${policyCase.id} ${part.name}`).toEqual(part.kuma);
    if (!known) matched += 1;
  }
  return { matched, total: parts.length };
}
