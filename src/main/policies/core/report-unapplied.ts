import type { PolicyOrigin } from '../../../shared/policy-types.js';
import type { PluginInput } from './plugin.js';

/**
 * Reports a conf field a proxy cannot apply, on the item that set it: the last of a merged rule's
 * origins (Kuma's merge: the last one wins). `field` is relative to the item (`default.http[0].abort`).
 */
export function reportUnapplied(input: Pick<PluginInput<unknown>, 'unapplied'>, origins: readonly PolicyOrigin[], field: string, reason: string): void {
  const origin = origins.at(-1);
  if (origin) input.unapplied({ policy: { type: origin.type, name: origin.name }, field: `${origin.item}.${field}`, reason });
}
