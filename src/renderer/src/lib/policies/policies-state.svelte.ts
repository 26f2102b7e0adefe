import { POLICY_TYPES, isPolicyType, type PolicyType } from '../../../../shared/policy-types.js';
import type { KumaObject } from '../api/index.js';
import { client } from '../api/index.js';
import { byMeshThenName } from '../compare.js';
import { LiveQuery } from '../state/live-query.svelte.js';

/** Every policy of every type, in every mesh, kept live: refetched after any policy is written. */
export function livePolicies(): LiveQuery<ReadonlyMap<PolicyType, KumaObject[]>> {
  return new LiveQuery(
    async () => {
      const all = (await client.policies()).toSorted(byMeshThenName);
      return new Map(POLICY_TYPES.map((type) => [type, all.filter((policy) => policy.type === type)]));
    },
    (event) => event.topic === 'resource.changed' && isPolicyType(event.key.type),
  );
}

/**
 * The proxies each policy of `list` affects (`_resources/dataplanes`), by `mesh/name`. The API
 * answers from the cached MeshContext, so after a write it is asked again once the cache has
 * had time to expire (a second, `store.cache.expirationTime`'s default).
 */
export function liveAffected(type: PolicyType, list: readonly KumaObject[]): LiveQuery<ReadonlyMap<string, string[]>> {
  return new LiveQuery(
    async () => {
      const answers = await Promise.all(list.map((policy) => client.policyDataplanes({ type, mesh: policy.mesh ?? '', name: policy.name })));
      return new Map(list.map((policy, index) => [`${policy.mesh}/${policy.name}`, answers[index]!.items.map((each) => each.name)]));
    },
    (event) => event.topic === 'resource.changed',
    { delayMs: 1_100 },
  );
}
