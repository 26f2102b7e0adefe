// Runs one policy plugin on a Kuma golden case's proxy with the rules Kuma's test hands it, and
// gives the listeners before and after in Kuma's JSON form, for tests comparing what it wrote.
import { expect } from 'vitest';
import { emptyProxyRules, type ProxyRules } from '../../../src/main/policies/core/rules.js';
import type { PolicyPlugin, UnappliedField } from '../../../src/main/policies/core/plugin.js';
import { EnvoyResources } from '../../../src/main/policies/core/envoy-resources.js';
import { bindProxyValues } from '../../../src/main/policies/core/proxy-bound.js';
import type { MeshContext } from '../../../src/main/xds/context/mesh-context.js';
import type { Proxy } from '../../../src/main/xds/generate/proxy.js';
import type { XdsTypeUrl } from '../../../src/main/xds/protocol/type-urls.js';
import { caseBaseResources, policyValidationCases, rulesAsTested, type PolicyCase } from './policy-cases.js';
import { KNOWN_DIFFERENCES, type KnownDifference } from '../known-differences.js';
import { toKumaJson, type KumaJson } from './xds-leaves.js';
import { contextView } from '../../../src/main/xds/context/context-view.js';
import { explains, subObjectDifferences } from './policy-goldens.js';

export interface PluginRun {
  resources: EnvoyResources;
  unapplied: UnappliedField[];
  /** A resource in Kuma's JSON form before the plugin ran, and after. */
  before(typeUrl: XdsTypeUrl, name: string): KumaJson | undefined;
  after(typeUrl: XdsTypeUrl, name: string): KumaJson | undefined;
}

export function runEnvoyPlugin<Conf>(
  plugin: PolicyPlugin<Conf>,
  policyCase: PolicyCase,
  adjust: { proxy?: (proxy: Proxy) => Proxy; context?: (context: MeshContext) => MeshContext } = {},
): PluginRun {
  const base = caseBaseResources(policyCase);
  const generated = base.resources.toResources();
  const unapplied: UnappliedField[] = [];
  const proxy = adjust.proxy?.(base.proxy) ?? base.proxy;
  const context = adjust.context?.(base.context) ?? base.context;
  // What the plugin reads of the context by name (a policy, a service's endpoints) comes through its resources.
  const resources = new EnvoyResources(generated, context);
  plugin.applyEnvoy({
    proxy,
    // As applyPolicyPlugins shows it: only the parts the plugin declares (context-view.ts).
    context: contextView(context, plugin.contextReads.envoy),
    rules: rulesAsTested<Conf>(policyCase),
    resources,
    rulesOf: (): ProxyRules<Conf> => emptyProxyRules(),
    unapplied: (field) => unapplied.push(field),
  });
  // As applyPolicyPlugins does after the last plugin: the proxy's own values in place of their markers.
  bindProxyValues(resources, proxy);
  const find = (resources: typeof generated, typeUrl: XdsTypeUrl, name: string) => {
    const found = resources[typeUrl].find((each) => each.name === name);
    return found && toKumaJson(typeUrl, found.resource);
  };
  return {
    resources,
    unapplied,
    before: (typeUrl, name) => find(generated, typeUrl, name),
    after: (typeUrl, name) => find(resources.toResources(), typeUrl, name),
  };
}

/**
 * The leaves where a sub-object meshdesk wrote differs from the golden's, less those a `policies`
 * known difference of this case and resource explains; and the known differences that explained none.
 */
export function goldenDifferences(caseId: string, resource: string, ours: unknown, golden: unknown): { unexplained: string[]; stale: KnownDifference[] } {
  const differing = subObjectDifferences(resource, '', golden, ours);
  const known = KNOWN_DIFFERENCES.filter(
    (difference) => difference.area === 'policies' && difference.case === caseId && new RegExp(difference.resource ?? '').test(resource),
  );
  return {
    unexplained: differing.filter((difference) => !known.some((entry) => explains(entry, difference))).map(({ path }) => path),
    stale: known.filter((entry) => !differing.some((difference) => explains(entry, difference))),
  };
}

/** Fails unless `ours` equals the golden's sub-object but for this case's known differences, each of which still shows. */
export function expectMatchesGolden(caseId: string, resource: string, ours: unknown, golden: unknown): void {
  expect(goldenDifferences(caseId, resource, ours, golden)).toEqual({ unexplained: [], stale: [] });
}

/**
 * A policy's validator cases as its plugin's `validate` sees them: the violations in its own
 * fields (`isOwn`), the shared checks' ones left out. A case where a shared check refuses a whole
 * `to`/`from`/`rules` list is left out: Kuma then skips the confs in it.
 */
export function confValidationCases(policyFolder: string, isOwn: (field: string) => boolean) {
  return policyValidationCases(policyFolder)
    .filter(
      ({ expected }) =>
        expected === 'valid' || !expected.some(({ field, message }) => /^spec\.(to|from|rules)$/.test(field) && message.startsWith('must not be defined')),
    )
    .map((each) => ({ ...each, own: each.expected === 'valid' ? [] : each.expected.filter(({ field }) => isOwn(field)) }));
}
