// What one policy change would do to one proxy's configuration, before it is applied: the proxy
// generated from its MeshContext as it is, and from the same context with that policy changed.
import type { PolicyPreviewBody, SnapshotResourcesJson } from '../../shared/api-types.js';
import { isShadow } from '../../shared/policy-effect.js';
import { asLive } from '../policies/shadow/shadow-context.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { withPolicyChange, type PolicyChange } from '../xds/context/with-policy-change.js';
import { generateProxy } from '../xds/generate/profile.js';
import type { Proxy } from '../xds/generate/proxy.js';
import { asSent } from '../xds/status/config-dump.js';

/**
 * The proxy's resources that the change would add, remove or change, as the wire carries them
 * (the config dump's form, so the diff reads like the Config and History tabs); the resources it
 * leaves alone are left out of both sides. A shadow policy applied is previewed as if it were live
 * (`asLive`): what it would do, which is what its author is testing; applying it changes nothing
 * (the answer's `shadow` says so).
 */
export function previewPolicyChange(context: MeshContext, proxy: Proxy, change: PolicyChange): PolicyPreviewBody {
  const before = asSent(generateProxy(context, proxy).resources);
  const asIfLive: PolicyChange = 'apply' in change ? { apply: asLive(change.apply) } : change;
  const after = asSent(generateProxy(withPolicyChange(context, asIfLive), proxy).resources);
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
