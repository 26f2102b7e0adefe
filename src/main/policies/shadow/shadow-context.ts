// The shadow view of a mesh: its MeshContext with the shadow policies (`kuma.io/effect: shadow`)
// applied as if they were live, which is what Kuma's inspection computes with `shadow=true`
// (DataplaneProxyBuilder.IncludeShadow). Never handed to the watchdog: nothing generated from it is sent.
import { EFFECT_LABEL, isShadow } from '../../../shared/policy-effect.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { besideOf } from '../../xds/context/carried-memo.js';
import { everyPolicy, type MeshContext } from '../../xds/context/mesh-context.js';
import type { PolicyResource } from '../core/policy.js';

const shadowViews = new WeakMap<MeshContext, MeshContext>();

/**
 * `context` with its shadow policies live, one per context (the context itself when it has none).
 * Its hash differs from the live context's, and it carries from it (`besideOf`) without becoming
 * what the mesh's next tick carries from.
 */
export function withShadowApplied(context: MeshContext): MeshContext {
  if (context.shadowPolicies.length === 0) return context;
  let view = shadowViews.get(context);
  if (view === undefined) {
    const built = buildMeshContext(context.mesh, [...context.dataplanesByName.values()], {
      policies: everyPolicy(context),
      destinations: context.destinations,
      shadow: 'apply',
      hash: `${context.hash}:shadow`,
    });
    shadowViews.set(context, (view = besideOf(built, context)));
  }
  return view;
}

/** The policy as it would be without its shadow label: what a preview generates to show what the policy would do if it were live. */
export function asLive(policy: PolicyResource): PolicyResource {
  if (!isShadow(policy.meta.labels)) return policy;
  const { [EFFECT_LABEL]: _effect, ...labels } = policy.meta.labels;
  return { ...policy, meta: { ...policy.meta, labels } };
}
