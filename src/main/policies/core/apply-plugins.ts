import type { MeshContext } from '../../xds/context/mesh-context.js';
import { ResourceGeneratorError } from '../../xds/generate/generator.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import type { GeneratedResources } from '../../xds/generate/resources.js';
import { EnvoyResources, type Attribution } from './envoy-resources.js';
import { nameRouteConfigsAfterHttpFilters } from './grpc-route-config-names.js';
import type { PolicyPlugin, UnappliedField } from './plugin.js';
import { bindProxyValues } from './proxy-bound.js';
import { runOrReplay } from './plugin-replay.js';

/** A proxy's whole configuration: its resources, which policy set which field, and what it could not apply. */
export interface GeneratedProxy {
  resources: GeneratedResources;
  attributions: readonly Attribution[];
  unapplied: readonly UnappliedField[];
}

/**
 * Runs the policy plugins over a proxy's generated resources, in the order given (Kuma's plugin
 * order for POLICY_PLUGINS), each with its type's rules for this proxy, or its last run replayed
 * when nothing it depends on changed (plugin-replay.ts). Every plugin runs even when no policy of
 * its type selects the proxy: some write Kuma's defaults then (MeshTimeout).
 * A plugin that throws fails the proxy's generation as a ResourceGeneratorError naming the plugin
 * and the proxy; the snapshot in place then stays. The proxy's own values are then written where
 * edits left markers (proxy-bound.ts), and a gRPC client's route configurations named after its
 * listeners' HTTP filters (grpc-route-config-names.ts).
 */
export function applyPolicyPlugins(plugins: readonly PolicyPlugin[], context: MeshContext, proxy: Proxy, generated: GeneratedResources): GeneratedProxy {
  if (plugins.length === 0) return { resources: generated, attributions: [], unapplied: [] };
  const resources = new EnvoyResources(generated, context);
  const unapplied: UnappliedField[] = [];
  for (const plugin of plugins) {
    try {
      runOrReplay(plugin, context, proxy, resources, (field) => void unapplied.push(field));
    } catch (error) {
      throw new ResourceGeneratorError(`policy plugin ${plugin.descriptor.type}`, proxy.id, error);
    }
  }
  // Last, so that every plugin's edits are shared by the proxies whose rules are the same.
  bindProxyValues(resources, proxy);
  // Once every plugin wrote its filters: grpc-js follows a filter change only as a new route name.
  if (proxy.kind === 'grpc') nameRouteConfigsAfterHttpFilters(resources);
  return { resources: resources.toResources(), attributions: resources.attributions(), unapplied };
}
