import type { DataplaneResource } from '../../../shared/resources.js';
import { canonical, carriedMemo, jsonWithMaps } from '../../xds/context/carried-memo.js';
import { contextView, type ContextPart, type ContextReads } from '../../xds/context/context-view.js';
import { policiesOf, type MeshContext } from '../../xds/context/mesh-context.js';
import type { Proxy } from '../../xds/generate/proxy.js';
import type { EnvoyResources } from './envoy-resources.js';
import type { PluginInput, PolicyPlugin, UnappliedField } from './plugin.js';
import { computeProxyRules } from './proxy-rules.js';
import { ResourceRecording } from './resource-recording.js';
import type { ProxyRules } from './rules.js';

/** One plugin's run for one proxy: everything it could depend on, and what it did. */
interface PluginRun {
  plugin: PolicyPlugin;
  proxy: Proxy;
  /** The proxy's Dataplane as the context's canonical object: equal content, the same object. */
  dataplane: DataplaneResource;
  rules: ProxyRules<unknown>;
  /** The context parts the plugin declares for the proxy's kind (contextReads), each as its canonical object. */
  parts: readonly object[];
  resources: ResourceRecording;
  unapplied: readonly UnappliedField[];
}

/**
 * Runs a policy plugin on a proxy, or replays its last run when nothing it can depend on changed:
 * the same plugin, an equal proxy, its rules the very object of the last run, each context part
 * it declares equal (the plugin sees the context through a view that refuses anything else:
 * context-view.ts), and every resource it read the very object it read (resource-recording.ts).
 * A tick after a change then runs only the plugins the change reaches, and replays the others'
 * puts, which are the objects of the last tick (their encoded bytes are found by identity).
 *
 * The last run is the one for this proxy in this context or, carried, in the mesh's previous one
 * (CarriedMemo). A run that read another Dataplane's rules (a gRPC client applying its
 * destinations' inbound rules) is not replayed: those are not among its recorded inputs.
 */
export function runOrReplay(plugin: PolicyPlugin, context: MeshContext, proxy: Proxy, resources: EnvoyResources, unapplied: (field: UnappliedField) => void): void {
  const { type } = plugin.descriptor;
  const runs = carriedMemo<string, PluginRun>(context, 'plugin-runs', () => new Map());
  const key = `${proxy.kind}\n${proxy.id}\n${type}`;
  const rules = computeProxyRules(context, proxy.dataplane, type).rules;
  const dataplane = canonical(context, 'dataplane', proxy.dataplane);
  const parts = partsOf(context, plugin.contextReads[proxy.kind]);
  const last = runs.current(key) ?? runs.previous(key);
  if (
    last !== undefined &&
    last.plugin === plugin &&
    last.rules === rules &&
    last.dataplane === dataplane &&
    sameProxy(last.proxy, proxy) &&
    last.parts.every((part, at) => part === parts[at]) &&
    last.resources.readsSameIn(resources)
  ) {
    last.resources.replayInto(resources);
    last.unapplied.forEach(unapplied);
    runs.set(key, last);
    return;
  }
  const recording = new ResourceRecording();
  const reported: UnappliedField[] = [];
  let replayable = true;
  const input: PluginInput<unknown> = {
    proxy,
    context: contextView(context, plugin.contextReads[proxy.kind]),
    rules,
    rulesOf: (other: DataplaneResource) => {
      replayable = false;
      return computeProxyRules(context, other, type).rules;
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
  if (replayable && recording.checkable) runs.set(key, { plugin, proxy, dataplane, rules, parts, resources: recording, unapplied: reported });
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
