// Kuma's `kuma.io/effect` label (api/mesh/v1alpha1/dataplane_helpers.go): shared by main and renderer.

export const EFFECT_LABEL = 'kuma.io/effect';

/** The one value Kuma reads: a shadow policy is stored and inspected, never applied to a proxy. */
export const SHADOW_EFFECT = 'shadow';

/** True for a resource labelled `kuma.io/effect: shadow` (Kuma's IsShadowedResource; any other value is live, and not validated). */
export function isShadow(labels: Readonly<Record<string, string>> | undefined): boolean {
  return labels?.[EFFECT_LABEL] === SHADOW_EFFECT;
}

/** Why a shadow policy changes nothing, in the words the UI and the API use. */
export const SHADOW_REASON =
  'labelled kuma.io/effect: shadow: stored and inspected, never applied to any proxy. Remove the label to make it live.';
