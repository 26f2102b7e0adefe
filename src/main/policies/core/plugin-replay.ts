import type { DataplaneResource } from '../../../shared/resources.js';
import { canonical, jsonWithMaps } from '../../xds/context/carried-memo.js';
import { contextView, type ContextPart, type ContextReads } from '../../xds/context/context-view.js';
import { policiesOf, type MeshContext } from '../../xds/context/mesh-context.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import type { EnvoyResources } from './envoy-resources.js';
import type { PluginInput, PolicyPlugin, UnappliedField } from './plugin.js';
import { computeProxyRules } from './proxy-rules.js';
import { ResourceRecording } from './resource-recording.js';
import type { ProxyRules } from './rules.js';

/** Everything a plugin's run for one proxy can depend on, besides the resources it reads. */
export interface PluginInputs {
  plugin: PolicyPlugin;
  proxy: Proxy;
  /** The proxy's Dataplane as the context's canonical object: equal content, the same object. */
  dataplane: DataplaneResource;
  rules: ProxyRules<unknown>;
  /** The context parts the plugin declares for the proxy's kind (contextReads), each as its canonical object. */
  parts: readonly object[];
}

/** One plugin's run for one proxy: what it depended on, and what it did. */
export interface PluginRun extends PluginInputs {
  resources: ResourceRecording;
  unapplied: readonly UnappliedField[];
}

/** A plugin's inputs for a proxy in a context: its type's rules for the proxy, and the context parts it declares. */
export function pluginInputs(plugin: PolicyPlugin, context: MeshContext, proxy: Proxy): PluginInputs {
  return {
    plugin,
    proxy,
    dataplane: canonical(context, 'dataplane', proxy.dataplane),
    rules: computeProxyRules(context, proxy.dataplane, plugin.descriptor.type).rules,
    parts: partsOf(context, plugin.contextReads[proxy.kind]),
  };
}

/** Whether a run had these very inputs: the same plugin, an equal proxy, the very rules and context parts. */
export function sameInputs(run: PluginRun | undefined, inputs: PluginInputs): boolean {
  return (
    run !== undefined &&
    run.plugin === inputs.plugin &&
    run.rules === inputs.rules &&
    run.dataplane === inputs.dataplane &&
    sameProxy(run.proxy, inputs.proxy) &&
    run.parts.every((part, at) => part === inputs.parts[at])
  );
}

/**
 * Runs a policy plugin on a proxy, or replays `last`, its last run for the proxy, when nothing it
 * can depend on changed: the same inputs (sameInputs; the plugin sees the context through a view
 * that refuses any part it does not declare: context-view.ts), and every resource it read the very
 * object it read (resource-recording.ts). A tick after a change then runs only the plugins the
 * change reaches, and replays the others' puts, which are the objects of the last tick (their
 * encoded bytes are found by identity).
 *
 * `readsSame` may tell it faster, from what it knows changed since `last` (resource-changes.ts).
 *
 * Answers the run to replay next time, or undefined for a run that read another Dataplane's rules
 * (a gRPC client applying its destinations' inbound rules): those are not among its recorded inputs.
 */
export function runOrReplay(
  inputs: PluginInputs,
  last: PluginRun | undefined,
  context: MeshContext,
  resources: EnvoyResources,
  unapplied: (field: UnappliedField) => void,
  readsSame: (run: PluginRun) => boolean = (run) => run.resources.readsSameIn(resources),
): PluginRun | undefined {
  if (last !== undefined && sameInputs(last, inputs) && readsSame(last)) {
    last.resources.replayInto(resources);
    last.unapplied.forEach(unapplied);
    return last;
  }
  const { plugin, proxy, rules } = inputs;
  const recording = new ResourceRecording();
  const reported: UnappliedField[] = [];
  let replayable = true;
  const input: PluginInput<unknown> = {
    proxy,
    context: contextView(context, plugin.contextReads[proxy.kind]),
    rules,
    rulesOf: (other: DataplaneResource) => {
      replayable = false;
      return computeProxyRules(context, other, plugin.descriptor.type).rules;
    },
    resources,
    unapplied: (field: UnappliedField) => {
      reported.push(field);
      unapplied(field);
    },
  };
  resources.recordInto(recording);
  try {
    if (proxy.kind === 'grpc') plugin.applyGrpc(input);
    else plugin.applyEnvoy(input);
  } finally {
    resources.recordInto(undefined);
  }
  return replayable && recording.checkable ? { ...inputs, resources: recording, unapplied: reported } : undefined;
}

const PART_CONTENT: Readonly<Record<ContextPart, (context: MeshContext) => object>> = {
  mesh: (context) => context.mesh,
  protocols: (context) => context.protocolByService,
  endpoints: (context) => context.endpointsByService,
  dataplanes: (context) => context.dataplanesByName,
  policies: (context) => context.policies,
};

/** The context parts a plugin declares, each the object of the mesh's previous context when equal in content. */
function partsOf(context: MeshContext, { parts, policyTypes = [] }: ContextReads): object[] {
  return [
    ...parts.map((part) => canonical(context, `context:${part}`, PART_CONTENT[part](context), jsonWithMaps)),
    // The kind proxy-rules.ts canonicalizes them under: one JSON text per type and context.
    ...policyTypes.map((type) => canonical(context, 'policies', policiesOf(context, type))),
  ];
}

/** The proxy's own inputs besides its Dataplane: its id, kind, mTLS identity, features, work directory and client. */
function sameProxy(a: Proxy, b: Proxy): boolean {
  return (
    a.id === b.id &&
    a.kind === b.kind &&
    a.identity === b.identity &&
    a.workDir === b.workDir &&
    a.userAgent?.name === b.userAgent?.name &&
    a.userAgent?.version === b.userAgent?.version &&
    sameFeatures(a.features, b.features)
  );
}

const NO_FEATURES: ReadonlySet<string> = new Set();

function sameFeatures(a: ReadonlySet<string> = NO_FEATURES, b: ReadonlySet<string> = NO_FEATURES): boolean {
  return a === b || (a.size === b.size && [...a].every((feature) => b.has(feature)));
}
