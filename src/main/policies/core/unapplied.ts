import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { EnvoyResources } from './envoy-resources.js';
import type { PluginInput } from './plugin.js';

/** `spec.to[0]` + `http.requestTimeout` → the value in that policy's item's `default`, if it sets it. */
function itemDefaultValue(resources: EnvoyResources, origin: PolicyOrigin, confPath: string): unknown {
  const policy = resources.policyNamed(origin.type, origin.name);
  if (policy === undefined) return undefined;
  const steps = [...origin.item.replace(/^spec\.?/, '').split(/[.[\]]+/), 'default', ...confPath.split('.')].filter((step) => step !== '');
  let value: unknown = policy.spec;
  for (const step of steps) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/**
 * Reports a conf field a proxy cannot apply, on the policy item that set it: of the items merged
 * into the rule, the last one whose `default` has the field (the one whose value won), else the last.
 */
export function reportUnapplied<Conf>(
  input: PluginInput<Conf>,
  origins: readonly PolicyOrigin[],
  confPath: string,
  reason: string,
): void {
  const origin = origins.findLast((each) => itemDefaultValue(input.resources, each, confPath) !== undefined) ?? origins.at(-1);
  if (origin === undefined) return;
  input.unapplied({ policy: { type: origin.type, name: origin.name }, field: `${origin.item}.default.${confPath}`, reason });
}
