import type { ProxyPolicyEffects } from '../../../shared/policy-types.js';

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
