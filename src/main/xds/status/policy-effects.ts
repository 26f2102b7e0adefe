import type { ProxyPolicyEffects } from '../../../shared/policy-types.js';
import type { WithheldResource } from '../../../shared/proxy-events.js';
import { shortTypeName } from '../protocol/type-urls.js';

/**
 * Each connected proxy's policy effects as its last successful generation left them, in memory
 * only: they are derived from the policies and the proxy's config, cost nothing to regenerate,
 * and would multiply the SQLite history's size if stored with every snapshot. Set on every
 * generation (a renamed policy changes the attributions without changing the config), dropped
 * with the proxy's snapshot.
 */
export class PolicyEffects {
  readonly #byProxy = new Map<string, ProxyPolicyEffects>();

  set(effects: ProxyPolicyEffects): void {
    this.#byProxy.set(effects.proxyId, effects);
  }

  get(proxyId: string): ProxyPolicyEffects | undefined {
    return this.#byProxy.get(proxyId);
  }

  forget(proxyId: string): void {
    this.#byProxy.delete(proxyId);
  }
}

/**
 * The policy items whose fields are in a resource that could not be sent, each reported as not
 * applied (once per item), beside what the plugins reported: their setting has not reached the proxy.
 */
export function unappliedOfWithheld(
  withheld: readonly WithheldResource[],
  attributions: ProxyPolicyEffects['attributions'],
): ProxyPolicyEffects['unapplied'] {
  const unapplied = new Map<string, ProxyPolicyEffects['unapplied'][number]>();
  for (const resource of withheld) {
    const holds = resource.kept ? 'the proxy keeps the one sent before' : 'the proxy has none';
    for (const attribution of attributions) {
      const origin = attribution.origins.at(-1);
      if (!origin || attribution.typeUrl !== resource.typeUrl || attribution.resource !== resource.name) continue;
      const key = `${origin.type}\u0000${origin.name}\u0000${origin.item}`;
      if (unapplied.has(key)) continue;
      const reason = `not sent: ${shortTypeName(resource.typeUrl)} resource "${resource.name}" could not be encoded, ${holds} (${resource.reason})`;
      unapplied.set(key, { policy: { type: origin.type, name: origin.name }, field: origin.item, reason });
    }
  }
  return [...unapplied.values()];
}
