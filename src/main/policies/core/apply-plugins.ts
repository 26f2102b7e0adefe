import type { MeshContext } from '../../xds/context/mesh-context.js';
import { ResourceGeneratorError } from '../../xds/generate/generator.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import { resourcesByType, type GeneratedResources } from '../../xds/generate/resources.js';
import type { XdsTypeUrl } from '../../xds/protocol/type-urls.js';
import { carriedMemo } from '../../xds/context/carried-memo.js';
import { EnvoyResources, type Attribution } from './envoy-resources.js';
import { nameRouteConfigsAfterHttpFilters } from './grpc-route-config-names.js';
import type { PolicyPlugin, UnappliedField } from './plugin.js';
import { bindProxyValues, proxyBinder } from './proxy-bound.js';
import { pluginInputs, runOrReplay, sameInputs, type PluginInputs, type PluginRun } from './plugin-replay.js';
import { ResourceChanges } from './resource-changes.js';

/** A proxy's whole configuration: its resources, which policy set which field, and what it could not apply. */
export interface GeneratedProxy {
  resources: GeneratedResources;
  attributions: readonly Attribution[];
  unapplied: readonly UnappliedField[];
}

/** A proxy's last generation: the profile's resources it started from, each plugin's run, and what came out. */
interface ProxyGeneration {
  generated: GeneratedResources;
  /** By plugin, in order; undefined for a run that cannot be replayed. */
  runs: readonly (PluginRun | undefined)[];
  result: GeneratedProxy;
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
 *
 * Against the proxy's last generation (in this context or, carried, the mesh's previous one), the
 * resources that differ are followed plugin by plugin (resource-changes.ts): once every plugin left
 * has the same inputs and reads none of them, each would replay its last run, and the generation is
 * the last one with those resources changed; with none changed, it is the last one itself.
 */
export function applyPolicyPlugins(plugins: readonly PolicyPlugin[], context: MeshContext, proxy: Proxy, generated: GeneratedResources): GeneratedProxy {
  if (plugins.length === 0) return { resources: generated, attributions: [], unapplied: [] };
  const generations = carriedMemo<string, ProxyGeneration>(context, 'proxy-generations', () => new Map());
  const key = `${proxy.kind}\n${proxy.id}`;
  const last = generations.get(key);
  const inputs = plugins.map((plugin) => pluginInputs(plugin, context, proxy));
  // A gRPC client's route configurations are renamed after the plugins: its generation goes the whole way.
  const comparable = last !== undefined && last.runs.length === inputs.length && proxy.kind === 'envoy';
  let changes = comparable ? ResourceChanges.between(last.generated, generated) : undefined;
  const resources = new EnvoyResources(generated, context);
  const unapplied: UnappliedField[] = [];
  const runs: (PluginRun | undefined)[] = [];
  // The plugins from here on have their last run's inputs: only from here can every plugin left replay.
  const sameFrom = comparable ? lastDifferent(last, inputs) + 1 : inputs.length;
  for (const [at, each] of inputs.entries()) {
    if (changes !== undefined && at >= sameFrom && !readAnyOf(last!, at, changes, resources)) {
      const result = lastWithChanges(last!, at, changes, { resources, proxy, unapplied });
      generations.set(key, { generated, runs: [...runs, ...last!.runs.slice(at)], result });
      return result;
    }
    try {
      // With the changes since the last generation known, a run that read none of them read the very same objects.
      const readsSame = changes && ((run: PluginRun) => !run.resources.readsAnyOf(changes!, resources));
      runs.push(runOrReplay(each, last?.runs[at], context, resources, (field) => void unapplied.push(field), readsSame));
    } catch (error) {
      throw new ResourceGeneratorError(`policy plugin ${each.plugin.descriptor.type}`, proxy.id, error);
    }
    changes = changes?.after(last!.runs[at], runs[at], (typeUrl, name) => resources.get(typeUrl, name));
  }
  // Last, so that every plugin's edits are shared by the proxies whose rules are the same.
  bindProxyValues(resources, proxy);
  // Once every plugin wrote its filters: grpc-js follows a filter change only as a new route name.
  if (proxy.kind === 'grpc') nameRouteConfigsAfterHttpFilters(resources);
  const result = { resources: resources.toResources(), attributions: resources.attributions(), unapplied };
  generations.set(key, { generated, runs, result });
  return result;
}

/** The index of the last plugin whose inputs differ from its last run's (or whose run renamed), -1 when none does. */
function lastDifferent(last: ProxyGeneration, inputs: readonly PluginInputs[]): number {
  return inputs.findLastIndex((each, at) => !sameInputs(last.runs[at], each) || last.runs[at]!.resources.renames);
}

/** Whether a last run from `at` on read a resource `changes` names (or endpoints that changed). */
function readAnyOf(last: ProxyGeneration, at: number, changes: ResourceChanges, resources: EnvoyResources): boolean {
  return last.runs.slice(at).some((run) => run!.resources.readsAnyOf(changes, resources));
}

/**
 * The last generation, the plugins from `at` on replayed: its resources, but those `changes` names
 * and no plugin left writes again, which are what the plugins before `at` made of them now (bound
 * to the proxy's values); its attributions and unapplied fields, those of the plugins before `at`
 * as they ran now.
 */
function lastWithChanges(
  last: ProxyGeneration,
  at: number,
  changes: ResourceChanges,
  now: { resources: EnvoyResources; proxy: Proxy; unapplied: readonly UnappliedField[] },
): GeneratedProxy {
  const replayed = last.runs.slice(at) as PluginRun[];
  changes.writtenAgainBy(replayed);
  const bind = proxyBinder(now.proxy);
  const typeOf = (typeUrl: XdsTypeUrl) => {
    const lastList = last.result.resources[typeUrl];
    if (!changes.hasAny(typeUrl)) return lastList;
    return lastList.map((named) => (changes.has(typeUrl, named.name) ? { name: named.name, resource: bind(now.resources.get(typeUrl, named.name)!) } : named));
  };
  return {
    resources: resourcesByType(typeOf),
    attributions: changes.writesDiffer ? now.resources.attributions().concat(...replayed.map((run) => run.resources.attributions())) : last.result.attributions,
    unapplied: now.unapplied.concat(...replayed.map((run) => run.unapplied)),
  };
}
