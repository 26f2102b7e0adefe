import type { PolicyType } from '../../../shared/policy-types.js';
import { POLICY_CONF_HOOKS } from '../conf-hooks.js';
import type { PolicyConfHooks } from './policy-conf-hooks.js';
import { mergePatches } from './merge-patch.js';
import type { ToItem } from './policy.js';

/** The type's conf hooks (policies/conf-hooks.ts lists the types that have some), else none. */
export function confHooksFor(type: PolicyType): PolicyConfHooks {
  return POLICY_CONF_HOOKS[type] ?? {};
}

/** The conf of a `to` item of a policy of this type. */
export function toItemConf(type: PolicyType, item: ToItem): unknown {
  // An item without a `default` is Go's zero conf, not none (Kuma's confs are struct values).
  return confHooksFor(type).toItemConf?.(item) ?? item.default ?? {};
}

/** Merges the confs of a type in order (least specific first), as Kuma's merge.Confs. */
export function mergeConfsOf(type: PolicyType, confs: readonly unknown[]): unknown[] {
  return confHooksFor(type).mergeConfs?.(confs) ?? [mergePatches(confs)];
}

/** Which item each part of the merged conf came from (the last item having it), for types that have parts. */
export function originsByPart<Origin>(type: PolicyType, items: readonly { conf: unknown; origin: Origin }[]): ReadonlyMap<string, Origin> | undefined {
  const partKeys = confHooksFor(type).partKeys;
  if (!partKeys) return undefined;
  return new Map(items.flatMap(({ conf, origin }) => partKeys(conf).map((key) => [key, origin] as const)));
}
