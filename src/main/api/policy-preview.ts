// What one policy change would do to one proxy's configuration, before it is applied: the proxy
// generated from its MeshContext as it is, and from the same context with that policy changed.
import type { PolicyPreviewBody, SnapshotResourcesJson } from '../../shared/api-types.js';
import type { PolicyType } from '../../shared/policy-types.js';
import type { PolicyResource } from '../policies/core/policy.js';
import { asLive, everyPolicy } from '../policies/shadow/shadow-context.js';
import { isShadow } from '../../shared/policy-effect.js';
import { buildMeshContext } from '../xds/context/build-mesh-context.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { besideOf } from '../xds/context/carried-memo.js';
import { generateProxy } from '../xds/generate/profile.js';
import type { Proxy } from '../xds/generate/proxy.js';
import { asSent } from '../xds/status/config-dump.js';

/** One policy written as given (created or replaced), or the policy of that type and name removed. */
export type PolicyChange = { apply: PolicyResource } | { remove: { type: PolicyType; name: string } };

/**
 * The context with one policy changed. Pure: the cached context stays as it is, and nothing is
 * written; the new context's hash says it differs, so nothing memoized per context is reused wrongly.
 * A shadow policy applied is previewed as if it were live (`asLive`): what it would do, which is
 * what its author is testing; applying it changes nothing (the answer's `shadow` says so).
 */
function withPolicyChange(context: MeshContext, change: PolicyChange): MeshContext {
  const { type, name } = 'apply' in change ? { type: change.apply.type, name: change.apply.meta.name } : change.remove;
  const others = everyPolicy(context).filter((policy) => !(policy.type === type && policy.meta.name === name));
  const policies = 'apply' in change ? [...others, asLive(change.apply)] : others;
  // Finds the tick's objects (see carriedMemo), without becoming what the next tick carries from.
  return besideOf(buildMeshContext(context.mesh, [...context.dataplanesByName.values()], { policies }), context);
}

/**
 * The proxy's resources that the change would add, remove or change, as the wire carries them
 * (the config dump's form, so the diff reads like the Config and History tabs); the resources it
 * leaves alone are left out of both sides.
 */
export function previewPolicyChange(context: MeshContext, proxy: Proxy, change: PolicyChange): PolicyPreviewBody {
  const before = asSent(generateProxy(context, proxy).resources);
  const after = asSent(generateProxy(withPolicyChange(context, change), proxy).resources);
  const changedOnly = (from: SnapshotResourcesJson, other: SnapshotResourcesJson): SnapshotResourcesJson =>
    Object.fromEntries(
      Object.entries(from).map(([typeUrl, list]) => {
        const others = new Map((other[typeUrl] ?? []).map(({ name, resource }) => [name, JSON.stringify(resource)]));
        return [typeUrl, list.filter(({ name, resource }) => others.get(name) !== JSON.stringify(resource))];
      }),
    );
  const shadow = 'apply' in change && isShadow(change.apply.meta.labels);
  return { proxyId: proxy.id, kind: proxy.kind, before: changedOnly(before, after), after: changedOnly(after, before), shadow };
}
