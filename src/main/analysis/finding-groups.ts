import type { Finding } from '../../shared/analysis-types.js';

/**
 * Findings that the same cause makes on many proxies, kept as one per key with every proxy named:
 * a route rule shadowed for 40 callers is one thing to fix.
 */
export class FindingGroups {
  readonly #byKey = new Map<string, Finding>();

  add(key: string, proxy: string, make: () => Omit<Finding, 'proxies'>): void {
    const found = this.#byKey.get(key);
    if (found) {
      if (!found.proxies.includes(proxy)) found.proxies.push(proxy);
      return;
    }
    this.#byKey.set(key, { ...make(), proxies: [proxy] });
  }

  findings(): Finding[] {
    return [...this.#byKey.values()];
  }
}
